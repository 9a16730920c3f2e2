import { randomUUID } from 'node:crypto';
import { FieldValue } from 'firebase-admin/firestore';
import { adminAuth, adminDb } from '@/lib/server/firebaseAdmin';
import type { OrganizationRole } from '@/lib/permissions';

export interface TestUser {
  uid: string;
  email: string;
  password: string;
  token: string;
}

/** Signs in through the Auth emulator's REST API, as the browser SDK would, and returns an ID token. */
export async function signIn(email: string, password: string): Promise<string> {
  const host = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  const response = await fetch(
    `http://${host}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-api-key`,
    { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password, returnSecureToken: true }) },
  );
  const payload = (await response.json()) as { idToken?: string; error?: { message: string } };
  if (!payload.idToken) throw new Error(`Sign-in failed: ${payload.error?.message}`);
  return payload.idToken;
}

/** A fresh user in the Auth emulator with a server user record; each test makes its own. */
export async function createTestUser({ superAdmin = false }: { superAdmin?: boolean } = {}): Promise<TestUser> {
  const uid = `user-${randomUUID()}`;
  const email = `${uid}@example.test`;
  const password = 'test-password';
  await adminAuth().createUser({ uid, email, password, displayName: 'Test User' });
  await adminDb()
    .collection('users')
    .doc(uid)
    .set({ uid, email, fullName: 'Test User', photoURL: '', ...(superAdmin ? { role: 'super_admin' } : {}) });
  return { uid, email, password, token: await signIn(email, password) };
}

/** An organization with the given members (the first is usually its owner). */
export async function createTestOrganization(members: Array<[TestUser, OrganizationRole]>, extra: Record<string, unknown> = {}) {
  const orgId = `org-${randomUUID()}`;
  const org = adminDb().collection('organizations').doc(orgId);
  const batch = adminDb().batch();
  batch.set(org, {
    name: `Org ${orgId.slice(4, 12)}`,
    company_name: `Org ${orgId.slice(4, 12)}`,
    logo: null,
    company_logo: null,
    connections_count: 0,
    created_at: FieldValue.serverTimestamp(),
    subscription: { status: 'active', plan: 'growth', current_period_end: '2099-01-01T00:00:00.000Z', customer_id: 'cus_secret' },
    ...extra,
  });
  for (const [user, role] of members) {
    batch.set(org.collection('members').doc(user.uid), { uid: user.uid, role, email: user.email, fullName: 'Test User' });
  }
  await batch.commit();
  return orgId;
}
