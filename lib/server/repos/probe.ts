import { adminDb } from '@/lib/server/firebaseAdmin';

/** One document read that proves Firestore answers (readiness and the super admins' health page). */
export async function readProbe(): Promise<void> {
  await adminDb().collection('health').doc('probe').get();
}
