import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';

/**
 * What a plan no longer includes is paused *by plan*: `status: 'paused'` (so the scheduler, the warehouse
 * reads and the conversion worker skip it, as they skip any paused object) with `paused_by_plan` saying
 * why and the way out. Resuming clears both; a connection is then due at once.
 */
export async function setPausedByPlan(
  orgId: string,
  collection: 'connections' | 'conversions',
  id: string,
  message: string,
): Promise<void> {
  await adminDb()
    .collection('organizations')
    .doc(orgId)
    .collection(collection)
    .doc(id)
    .update({ status: 'paused', paused_by_plan: message, updated_at: FieldValue.serverTimestamp() });
}

export async function resumeFromPlanPause(orgId: string, collection: 'connections' | 'conversions', id: string): Promise<void> {
  await adminDb()
    .collection('organizations')
    .doc(orgId)
    .collection(collection)
    .doc(id)
    .update({
      status: 'active',
      paused_by_plan: null,
      updated_at: FieldValue.serverTimestamp(),
      ...(collection === 'connections' && { next_run_at: Timestamp.now() }),
    });
}

/** The organization's plan id as stored (null without one). */
export async function planOfOrganization(orgId: string): Promise<unknown> {
  const org = await adminDb().collection('organizations').doc(orgId).get();
  return org.get('subscription')?.plan ?? null;
}
