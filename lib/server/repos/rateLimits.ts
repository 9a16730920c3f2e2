import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';

/**
 * The counters behind the rate limits (lib/server/limits): `rate_limits/{limit}_{key hash}_{window}` holds
 * a window's count; the submissions' shared counts keep one document per instance under it
 * (`rate_limit_instances`). Every document carries `expires_at` (the TTL policy deletes it).
 */
const counters = () => adminDb().collection('rate_limits');

/** One limit's counter in one window (ms since the epoch). */
export interface WindowCounter {
  id: string;
  name: string;
  startsAt: number;
  endsAt: number;
}

/** The counts of these counters now, in their order (0 where none is written). */
export async function readCounts(list: Array<Pick<WindowCounter, 'id'>>): Promise<number[]> {
  const snaps = await adminDb().getAll(...list.map((counter) => counters().doc(counter.id)));
  return snaps.map((snap) => Number(snap.get('count')) || 0);
}

/** Adds (or takes back) one to each counter, atomically per counter. */
export async function addToCounters(list: WindowCounter[], delta: 1 | -1): Promise<void> {
  const batch = adminDb().batch();
  for (const counter of list) {
    batch.set(
      counters().doc(counter.id),
      {
        limit_name: counter.name,
        count: FieldValue.increment(delta),
        window_start: Timestamp.fromMillis(counter.startsAt),
        expires_at: Timestamp.fromMillis(counter.endsAt),
      },
      { merge: true },
    );
  }
  await batch.commit();
}

const instancesOf = (sharedId: string) => counters().doc(sharedId).collection('rate_limit_instances');

/** The path of a shared counter's per-instance counts. */
export const instanceCountsPath = (sharedId: string) => instancesOf(sharedId).path;

/** Writes this instance's count of a shared window (replacing what it wrote before). */
export async function writeInstanceCount(sharedId: string, instance: string, counter: Omit<WindowCounter, 'id'> & { count: number }) {
  await instancesOf(sharedId)
    .doc(instance)
    .set({
      limit_name: counter.name,
      count: counter.count,
      window_start: Timestamp.fromMillis(counter.startsAt),
      expires_at: Timestamp.fromMillis(counter.endsAt),
    });
}

/** Every instance's count of a shared window, summed. */
export async function sumInstanceCounts(sharedId: string): Promise<number> {
  const all = await instancesOf(sharedId).get();
  return all.docs.reduce((sum, doc) => sum + (Number(doc.get('count')) || 0), 0);
}
