/**
 * For rate limits kept in this instance's memory (with TokenBucket, lib/server/limits/tokenBucket.ts): no Firestore write or read on the request's path, so a
 * flood costs the database nothing. Each instance limits on its own (n instances let n times through),
 * which is fine where the aim is to stop one caller's loop, not to meter a paid allowance.
 */

/** Keys kept in memory at most per map; the least recently seen go first. */
const MAX_TRACKED = 50_000;

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
