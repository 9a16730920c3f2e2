import { FieldValue } from 'firebase-admin/firestore';
import { adminAuth, adminDb } from '@/lib/server/firebaseAdmin';
import { DEMO } from '@/scripts/lib/demo';

async function ensureDemoUser() {
  const auth = adminAuth();
  try {
    const existing = await auth.getUser(DEMO.uid);
    // Re-running resets the password, so the printed credentials always work.
    await auth.updateUser(existing.uid, { email: DEMO.email, password: DEMO.password, displayName: DEMO.fullName });
  } catch (error) {
    if ((error as { code?: string }).code !== 'auth/user-not-found') throw error;
    await auth.createUser({
      uid: DEMO.uid,
      email: DEMO.email,
      password: DEMO.password,
      displayName: DEMO.fullName,
      emailVerified: true,
    });
  }
}

/** The demo user, owner of the demo organization with an active subscription. Safe to run again. */
export async function seedDemo(): Promise<void> {
  await ensureDemoUser();
  const db = adminDb();
  const org = db.collection('organizations').doc(DEMO.orgId);
  const batch = db.batch();
  batch.set(
    db.collection('users').doc(DEMO.uid),
    { email: DEMO.email, fullName: DEMO.fullName, uid: DEMO.uid, photoURL: '', created_at: FieldValue.serverTimestamp() },
    { merge: true },
  );
  batch.set(
    org,
    {
      name: DEMO.orgName,
      company_name: DEMO.orgName,
      name_lower: DEMO.orgName.toLowerCase(),
      logo: null,
      company_logo: null,
      is_demo: true,
      connections_count: 0,
      created_by: DEMO.uid,
      created_at: FieldValue.serverTimestamp(),
      subscription: { status: 'active', plan: 'growth', current_period_end: '2099-12-31T00:00:00.000Z' },
    },
    { merge: true },
  );
  batch.set(
    org.collection('members').doc(DEMO.uid),
    { uid: DEMO.uid, role: 'owner', email: DEMO.email, fullName: DEMO.fullName, joined_at: FieldValue.serverTimestamp() },
    { merge: true },
  );
  await batch.commit();
}
