import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { Batch, Gathered, Item } from '@/lib/server/delivery/batch';

/**
 * Events gathered per conversion until a full batch (the platform's maximum) or a short linger, whichever
 * comes first: a platform call carries many messages' events, not one message's.
 */
export function createGathering(options: {
  /** How long a partial batch waits for more events. */
  lingerMs: number;
  maxBatchOf: (conversion: Conversion) => number;
  /** Takes a batch ready to go (its lane's line). */
  send: (batch: Batch) => void;
}) {
  const { lingerMs, maxBatchOf, send } = options;
  const gathered = new Map<string, Gathered>();
  const keyOf = (orgId: string, conversionId: string) => `${orgId}/${conversionId}`;

  /** Sends what a conversion has gathered (up to its maximum), leaving the rest for the next batch. */
  function flush(key: string) {
    const entry = gathered.get(key);
    if (!entry || entry.items.length === 0) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    const items = entry.items.splice(0, maxBatchOf(entry.conversion));
    if (entry.items.length === 0) gathered.delete(key);
    else schedule(key, entry);
    send({ entry, items, attempt: Math.max(0, ...items.map((item) => item.attempt)) });
  }

  function schedule(key: string, entry: Gathered) {
    if (entry.items.length >= maxBatchOf(entry.conversion)) return flush(key);
    entry.timer ??= setTimeout(() => flush(key), lingerMs);
  }

  return {
    /** Adds events for a conversion, not yet sent: a message's items all go in before any is (see schedule). */
    add(orgId: string, conversion: Conversion, items: Item[]) {
      const key = keyOf(orgId, conversion.id);
      let entry = gathered.get(key);
      if (!entry) {
        entry = { orgId, conversion, items: [], timer: null };
        gathered.set(key, entry);
      }
      entry.items.push(...items);
    },
    /** Sends a conversion's full batch at once, or starts the linger of a partial one. */
    schedule(orgId: string, conversionId: string) {
      const key = keyOf(orgId, conversionId);
      const entry = gathered.get(key);
      if (entry) schedule(key, entry);
    },
    /** Sends everything gathered (a drain). */
    flushAll() {
      for (const key of [...gathered.keys()]) flush(key);
    },
  };
}
