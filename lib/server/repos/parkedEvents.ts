import { randomUUID } from 'node:crypto';
import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { getConversion, conversionRef } from '@/lib/server/repos/conversions';

/**
 * Parked events of a conversion (`conversions/{id}/parked`): held until its destination is reconnected, or
 * failed until someone presses Retry; published again chunk by chunk under a lease.
 */

export type ParkReason = 'held' | 'failed';

/** How long a Retry holds a parked chunk while it publishes it: another Retry skips it meanwhile. */
const PARKED_LEASE_MS = 60_000;

/**
 * Retry: the parked events of a reason are published again, chunk by chunk, each under a lease taken in a
 * transaction, so Retries at once never publish one chunk twice. A chunk is removed (and its count taken
 * off) once published, by the lease holder only; a Retry that dies between the two leaves its chunk to the
 * next one after the lease runs out (published twice then: the platforms deduplicate by event id).
 */
export async function retryParked(
  orgId: string,
  conversionId: string,
  reason: ParkReason,
  publish: (events: ConversionEvent[]) => Promise<void>,
): Promise<number> {
  const ref = conversionRef(orgId, conversionId);
  const snapshot = await ref.collection('parked').where('reason', '==', reason).get();
  const lease = randomUUID();
  let taken = 0;
  for (const doc of snapshot.docs) {
    const events = await adminDb().runTransaction(async (transaction) => {
      const current = await transaction.get(doc.ref);
      const leasedUntil = current.get('leased_until') as Timestamp | undefined;
      if (!current.exists || (leasedUntil && leasedUntil.toMillis() > Date.now())) return null;
      transaction.update(doc.ref, { lease, leased_until: Timestamp.fromMillis(Date.now() + PARKED_LEASE_MS) });
      return (current.get('events') ?? []) as ConversionEvent[];
    });
    if (!events) continue;
    try {
      await publish(events);
    } catch (error) {
      await doc.ref.update({ lease: null, leased_until: null }).catch(() => undefined);
      throw error;
    }
    const removed = await adminDb().runTransaction(async (transaction) => {
      const current = await transaction.get(doc.ref);
      if (!current.exists || current.get('lease') !== lease) return false;
      transaction.delete(doc.ref);
      transaction.update(ref, { [`parked.${reason}`]: FieldValue.increment(-events.length) });
      return true;
    });
    if (removed) taken += events.length;
  }
  return taken;
}

/** How many events are parked, per reason: the counters kept beside the parked documents. */
export async function parkedCounts(orgId: string, conversionId: string): Promise<Record<ParkReason, number>> {
  return (await getConversion(orgId, conversionId)).parked;
}
