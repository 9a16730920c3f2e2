/**
 * A request budget shared by every organization (Google's Data Manager: 300 requests a minute per Cloud
 * project, for all our tenants together), served fairly: a token bucket refilled at `perMinute`, and the
 * organizations waiting for a token take turns (round robin), so one organization's flood waits behind
 * the others' next request, never the other way round. Per worker: with N workers, give each perMinute ÷ N.
 */
export interface FairQuota {
  /** Resolves when this organization may send one request. */
  take(orgId: string): Promise<void>;
  /** Requests waiting for a token. */
  waiting(): number;
  stop(): void;
}

export function createFairQuota(perMinute: number, burst = Math.max(1, Math.floor(perMinute / 60))): FairQuota {
  const msPerToken = 60_000 / perMinute;
  let tokens = burst;
  let refilledAt = Date.now();
  /** Organizations in line, in turn order (a Map keeps insertion order), each with its own queue. */
  const line = new Map<string, Array<() => void>>();
  let timer: NodeJS.Timeout | null = null;
  let count = 0;

  function serve() {
    const now = Date.now();
    tokens = Math.min(burst, tokens + (now - refilledAt) / msPerToken);
    refilledAt = now;
    while (tokens >= 1 && line.size > 0) {
      const [orgId, queue] = line.entries().next().value as [string, Array<() => void>];
      tokens -= 1;
      count -= 1;
      const resolve = queue.shift()!;
      // Served: to the back of the line (if it waits for more).
      line.delete(orgId);
      if (queue.length > 0) line.set(orgId, queue);
      resolve();
    }
    if (line.size > 0 && !timer) {
      timer = setTimeout(
        () => {
          timer = null;
          serve();
        },
        Math.max(1, Math.ceil((1 - tokens) * msPerToken)),
      );
    }
  }

  return {
    take(orgId) {
      return new Promise<void>((resolve) => {
        const queue = line.get(orgId);
        if (queue) queue.push(resolve);
        else line.set(orgId, [resolve]);
        count += 1;
        serve();
      });
    },
    waiting: () => count,
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
