/**
 * A request budget shared by every organization (Google's Data Manager: 300 requests a minute per Cloud
 * project, for all our tenants together), served fairly: a token bucket refilled at `perMinute`, and the
 * organizations waiting for a token take turns (round robin), so one organization's flood waits behind
 * the others' next request, never the other way round. Per worker: with N workers, give each perMinute ÷ N.
 */
import { TokenBucket } from '@/lib/server/limits/tokenBucket';

export interface FairQuota {
  /** Resolves when this organization may send one request. */
  take(orgId: string): Promise<void>;
  stop(): void;
}

export function createFairQuota(perMinute: number, burst = Math.max(1, Math.floor(perMinute / 60))): FairQuota {
  const bucket = new TokenBucket(perMinute / 60, burst);
  /** Organizations in line, in turn order (a Map keeps insertion order), each with its own queue. */
  const line = new Map<string, Array<() => void>>();
  let timer: NodeJS.Timeout | null = null;

  function serve() {
    while (line.size > 0) {
      const wait = bucket.take(1);
      if (wait > 0) {
        timer ??= setTimeout(
          () => {
            timer = null;
            serve();
          },
          Math.max(1, Math.ceil(wait * 1000)),
        );
        return;
      }
      const [orgId, queue] = line.entries().next().value as [string, Array<() => void>];
      const resolve = queue.shift()!;
      // Served: to the back of the line (if it waits for more).
      line.delete(orgId);
      if (queue.length > 0) line.set(orgId, queue);
      resolve();
    }
  }

  return {
    take(orgId) {
      return new Promise<void>((resolve) => {
        const queue = line.get(orgId);
        if (queue) queue.push(resolve);
        else line.set(orgId, [resolve]);
        if (!timer) serve();
      });
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
