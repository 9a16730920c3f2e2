/**
 * Rate limits kept in this instance's memory: no Firestore write or read on the request's path, so a
 * flood costs the database nothing. Each instance limits on its own (n instances let n times through),
 * which is fine where the aim is to stop one caller's loop, not to meter a paid allowance.
 */

/** Keys kept in memory at most per map; the least recently seen go first. */
const MAX_TRACKED = 50_000;

/** A bucket of tokens refilled continuously at `perSecond`, holding `capacity` at most (the burst). */
export class TokenBucket {
  private tokens: number;
  private at = Date.now();

  constructor(
    private perSecond: number,
    private capacity = perSecond,
  ) {
    this.tokens = capacity;
  }

  /**
   * Takes `n` tokens, or answers the seconds until they would be there (> 0). A take larger than the
   * bucket passes on a full bucket and leaves it in debt, so it is neither refused forever nor free.
   */
  take(n: number, perSecond: number, now: number, capacity = perSecond): number {
    if (perSecond !== this.perSecond || capacity !== this.capacity) {
      this.tokens = Math.min(this.tokens, capacity);
      this.perSecond = perSecond;
      this.capacity = capacity;
    }
    this.tokens = Math.min(capacity, this.tokens + ((now - this.at) / 1000) * perSecond);
    this.at = now;
    const needed = Math.min(n, capacity);
    if (this.tokens >= needed) {
      this.tokens -= n;
      return 0;
    }
    return (needed - this.tokens) / perSecond;
  }
}

/** A Map as a small LRU: a hit moves to the end, the oldest go when it is full. */
export function touch<V>(map: Map<string, V>, id: string, make: () => V): V {
  let value = map.get(id);
  if (value !== undefined) {
    map.delete(id);
  } else {
    value = make();
    if (map.size >= MAX_TRACKED) map.delete(map.keys().next().value!);
  }
  map.set(id, value);
  return value;
}
