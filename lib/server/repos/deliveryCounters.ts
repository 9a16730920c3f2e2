import { randomBytes } from 'node:crypto';
import { Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import {
  addTally,
  conversionDeliveryFields,
  conversionRef,
  hourDocument,
  type CounterSink,
  type DeliveryCounts,
  type HourTally,
  type ParkReason,
} from '@/lib/server/repos/conversions';

/**
 * The delivery worker's counters, summed in memory and written at most once per `hourEveryMs` (a second)
 * per conversion: Firestore sustains about one write a second on a document, and a busy conversion records
 * many batches a second, on several workers. Each worker writes its own shard of an hour
 * (`hours/{hour}~{worker}`; readers sum the documents of an hour), so the workers never add up on one hour
 * document. The conversion's own document (last delivery, parked counts) is written at most once per
 * `conversionEveryMs` (5 s) per worker: five workers stay within a write a second.
 *
 * What a crash loses: the counters of the last second (the chart, match quality and alerts count them; the
 * delivery records, written before the ack, keep every outcome) and a last-delivery time up to 5 s old.
 * Parked counts are never lost: a batch that parks events is acknowledged only once their count is written.
 */

interface Pending {
  orgId: string;
  conversionId: string;
  hours: Map<string, HourTally>;
  deliveredAt: Date | null;
  requestId?: string;
  parked: Partial<Record<ParkReason, number>>;
  /** Resolved once what they added is written. */
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void; conversionDoc: boolean }>;
  conversionWrittenAt: number;
}

const RETENTION_MS = 30 * 24 * 3600 * 1000;
/** Firestore's NOT_FOUND: the conversion was deleted meanwhile (its counters go with it). */
const NOT_FOUND = 5;

export interface DeliveryCounters extends CounterSink {
  /** Writes everything now and stops the timer (a clean shutdown). */
  stop(): Promise<void>;
  /** Writes everything now (tests). */
  flush(): Promise<void>;
}

export function createDeliveryCounters(
  options: { hourEveryMs?: number; conversionEveryMs?: number; worker?: string } = {},
): DeliveryCounters {
  const hourEveryMs = options.hourEveryMs ?? Number(process.env.DELIVERY_COUNTERS_MS || 1000);
  const conversionEveryMs = options.conversionEveryMs ?? Number(process.env.DELIVERY_CONVERSION_WRITE_MS || 5000);
  /** This worker's shard of each hour. */
  const worker = options.worker ?? randomBytes(4).toString('hex');
  const pending = new Map<string, Pending>();
  /** When each conversion's document was last written by this worker (kept across flushes). */
  const writtenAt = new Map<string, number>();
  let flushing: Promise<void> = Promise.resolve();

  function entryOf(orgId: string, conversionId: string): Pending {
    const key = `${orgId}/${conversionId}`;
    let entry = pending.get(key);
    if (!entry) {
      entry = {
        orgId,
        conversionId,
        hours: new Map(),
        deliveredAt: null,
        parked: {},
        waiters: [],
        conversionWrittenAt: writtenAt.get(key) ?? 0,
      };
      pending.set(key, entry);
    }
    return entry;
  }

  /** Puts back what a failed write held, for the next flush. */
  function merge(into: Pending, from: Pending) {
    for (const [hour, tally] of from.hours) into.hours.set(hour, addTally(into.hours.get(hour) ?? {}, tally));
    if (from.deliveredAt && (!into.deliveredAt || from.deliveredAt > into.deliveredAt)) {
      into.deliveredAt = from.deliveredAt;
      into.requestId = from.requestId ?? into.requestId;
    }
    for (const [reason, count] of Object.entries(from.parked) as Array<[ParkReason, number]>)
      into.parked[reason] = (into.parked[reason] ?? 0) + count;
    into.waiters.push(...from.waiters);
  }

  async function write(entry: Pending, now: number): Promise<void> {
    const ref = conversionRef(entry.orgId, entry.conversionId);
    const key = `${entry.orgId}/${entry.conversionId}`;
    const batch = adminDb().batch();
    const expires = Timestamp.fromMillis(now + RETENTION_MS);
    for (const [hour, tally] of entry.hours)
      batch.set(ref.collection('hours').doc(`${hour}~${worker}`), hourDocument(hour, tally, expires), { merge: true });
    const conversionDue = now - entry.conversionWrittenAt >= conversionEveryMs;
    const fields = conversionDue ? conversionDeliveryFields(entry) : {};
    const writesConversion = Object.keys(fields).length > 0;
    if (writesConversion) batch.update(ref, fields);
    try {
      await batch.commit();
    } catch (error) {
      if ((error as { code?: number }).code !== NOT_FOUND) throw error;
      // The conversion is gone: what it counted goes with it.
      entry.waiters.forEach((waiter) => waiter.resolve());
      return;
    }
    if (writesConversion) writtenAt.set(key, now);
    entry.waiters.filter((waiter) => writesConversion || !waiter.conversionDoc).forEach((waiter) => waiter.resolve());
    // What the conversion's document did not take yet waits for its turn (the same entry, with no hour counters).
    if (!conversionDue && Object.keys(conversionDeliveryFields(entry)).length > 0) {
      const rest = entryOf(entry.orgId, entry.conversionId);
      merge(rest, { ...entry, hours: new Map(), waiters: entry.waiters.filter((waiter) => waiter.conversionDoc) });
    }
  }

  async function flushOnce(force: boolean) {
    const now = Date.now();
    const entries = [...pending.values()];
    pending.clear();
    await Promise.all(
      entries.map(async (entry) => {
        if (force) entry.conversionWrittenAt = 0;
        try {
          await write(entry, now);
        } catch (error) {
          console.error('[worker] delivery counters not written; trying again', {
            conversion: entry.conversionId,
            error: error instanceof Error ? error.message : error,
          });
          merge(entryOf(entry.orgId, entry.conversionId), entry);
        }
      }),
    );
  }

  const flush = (force = false) => (flushing = flushing.then(() => flushOnce(force)));
  const timer = setInterval(() => void flush(), hourEveryMs);
  timer.unref?.();

  return {
    add(orgId: string, conversionId: string, counts: DeliveryCounts) {
      const entry = entryOf(orgId, conversionId);
      entry.hours.set(counts.hour, addTally(entry.hours.get(counts.hour) ?? {}, counts.tally));
      if (counts.deliveredAt && (!entry.deliveredAt || counts.deliveredAt >= entry.deliveredAt)) {
        entry.deliveredAt = counts.deliveredAt;
        entry.requestId = counts.requestId ?? entry.requestId;
      }
      const parks = Object.values(counts.parked).some((count) => count && count > 0);
      for (const [reason, count] of Object.entries(counts.parked) as Array<[ParkReason, number]>)
        entry.parked[reason] = (entry.parked[reason] ?? 0) + count;
      return new Promise<void>((resolve, reject) => entry.waiters.push({ resolve, reject, conversionDoc: parks }));
    },
    flush: () => flush(true),
    async stop() {
      clearInterval(timer);
      await flush(true);
    },
  };
}
