import { randomUUID } from 'node:crypto';
import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import { isWarehouseSource, type Conversion, type DeliveryRow, type ReadState } from '@/lib/shared/conversions/conversion';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { conversionRef, toConversion } from '@/lib/server/repos/conversions';
import { addDelivery } from '@/lib/server/repos/deliveryLog';

/**
 * The reads of warehouse conversions (BigQuery, Mixpanel), kept in the conversion's `read` map:
 * - `due_at`: when the next read may start (the schedule, or Read now);
 * - `lease_until` / `lease_token`: the worker reading it; a dead worker's lease runs out;
 * - `cursor: { value, ids }`: where the next read starts (the cursor column's value, inclusive) and
 *   the event ids of exactly that value already published, so a row of that value is taken once;
 * - `last`, `last_at`, `error`: what the page shows.
 * Only the lease's holder moves the cursor, page by page, in a transaction that checks its token.
 */

export interface ReadCursor {
  value: string;
  ids: string[];
}

export interface ReadClaim {
  token: string;
  conversion: Conversion;
  cursor: ReadCursor | null;
}

/**
 * Active warehouse conversions whose read is due, over every organization, the longest waiting first
 * (a round takes at most `limit`; the rest come next round). Only their paths are read, not their
 * cursors or queries.
 */
export async function dueReads(now = new Date(), limit = 500): Promise<Array<{ orgId: string; id: string }>> {
  const snapshot = await adminDb()
    .collectionGroup('conversions')
    .where('source.type', 'in', ['bigquery', 'mixpanel'])
    .where('status', '==', 'active')
    .where('read.due_at', '<=', Timestamp.fromDate(now))
    .orderBy('read.due_at')
    .select()
    .limit(limit)
    .get();
  return snapshot.docs.map((doc) => ({ orgId: doc.ref.parent.parent!.id, id: doc.id }));
}

const cursorOf = (value: unknown): ReadCursor | null => {
  const cursor = value as Partial<ReadCursor> | undefined;
  return cursor && typeof cursor.value === 'string' && Array.isArray(cursor.ids)
    ? { value: cursor.value, ids: cursor.ids.map(String) }
    : null;
};

/** Takes the read of a conversion when it is due, active and nobody holds a live lease; else null. */
export async function claimRead(orgId: string, id: string, leaseMs: number): Promise<ReadClaim | null> {
  const ref = conversionRef(orgId, id);
  const token = randomUUID();
  return adminDb().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists || snap.get('status') !== 'active') return null;
    const conversion = toConversion(snap);
    if (!isWarehouseSource(conversion.source)) return null;
    const now = Date.now();
    const due = snap.get('read.due_at') as Timestamp | null | undefined;
    const lease = snap.get('read.lease_until') as Timestamp | null | undefined;
    if ((due && due.toMillis() > now) || (lease && lease.toMillis() > now)) return null;
    tx.update(ref, {
      'read.lease_until': Timestamp.fromMillis(now + leaseMs),
      'read.lease_token': token,
      'read.claimed_at': Timestamp.fromMillis(now),
    });
    return { token, conversion, cursor: cursorOf(snap.get('read.cursor')) };
  });
}

/** Delivery records hold at most this many rows (a Firestore document stays well under 1 MiB). */
const RECORD_ROWS = 1000;

/**
 * Saves how far a read got and extends its lease, with the rows of that stretch that made no event
 * (logged *not sent*) in the same transaction: a read that dies before saving reads those rows again
 * and logs them once, not twice. False when the lease was lost (stop reading; nothing is written).
 */
export async function saveReadCursor(
  orgId: string,
  id: string,
  token: string,
  cursor: ReadCursor,
  leaseMs: number,
  notSent: DeliveryRow[] = [],
): Promise<boolean> {
  const ref = conversionRef(orgId, id);
  return adminDb().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists || snap.get('read.lease_token') !== token) return false;
    for (let start = 0; start < notSent.length; start += RECORD_ROWS) {
      addDelivery(tx, orgId, id, { test: false, latencyMs: null, rows: notSent.slice(start, start + RECORD_ROWS) });
    }
    tx.update(ref, { 'read.cursor': cursor, 'read.lease_until': Timestamp.fromMillis(Date.now() + leaseMs) });
    return true;
  });
}

/**
 * Keeps a read's lease alive while it waits on a long query or export; false when it was lost. No
 * transaction: it must not queue behind the delivery worker's writes to the same document. Should the
 * lease change hands between the read and the write, the new holder's lease is only made longer.
 */
export async function renewReadLease(orgId: string, id: string, token: string, leaseMs: number): Promise<boolean> {
  const ref = conversionRef(orgId, id);
  const snap = await ref.get();
  if (!snap.exists || snap.get('read.lease_token') !== token) return false;
  await ref.update({ 'read.lease_until': Timestamp.fromMillis(Date.now() + leaseMs) });
  return true;
}

/** Ends a read: its summary or error, the next due time, the lease freed (only by its holder). */
export async function finishRead(
  orgId: string,
  id: string,
  token: string,
  outcome: { last: NonNullable<ReadState['last']>; dueAt: Date } | { error: { code: string; message: string }; dueAt: Date },
): Promise<boolean> {
  const ref = conversionRef(orgId, id);
  return adminDb().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists || snap.get('read.lease_token') !== token) return false;
    const result =
      'last' in outcome
        ? { 'read.last': outcome.last, 'read.error': FieldValue.delete() }
        : { 'read.error': { ...outcome.error, at: Timestamp.now() } };
    // Read now pressed while this read ran (a due time after its claim) stays due: the request is not lost.
    const due = snap.get('read.due_at') as Timestamp | null | undefined;
    const claimed = snap.get('read.claimed_at') as Timestamp | null | undefined;
    const requested = Boolean(due && claimed && due.toMillis() > claimed.toMillis());
    tx.update(ref, {
      ...result,
      'read.last_at': Timestamp.now(),
      ...(requested ? {} : { 'read.due_at': Timestamp.fromDate(outcome.dueAt) }),
      'read.lease_until': null,
      'read.lease_token': null,
    });
    return true;
  });
}

/** Read now: the conversion's next read is due at once (a read under way finishes first). */
export async function requestRead(orgId: string, id: string): Promise<void> {
  await conversionRef(orgId, id).update({ 'read.due_at': Timestamp.now() });
}
