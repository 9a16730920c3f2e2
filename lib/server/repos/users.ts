import { adminDb } from '@/lib/server/firebaseAdmin';
import { SUPER_ADMIN } from '@/lib/permissions';

export interface UserRecord {
  email: string;
  fullName: string;
  uid: string;
  photoURL: string;
  role?: typeof SUPER_ADMIN;
}

export const usersCollection = () => adminDb().collection('users');

export async function getUserRecord(uid: string): Promise<UserRecord | null> {
  const snap = await usersCollection().doc(uid).get();
  return snap.exists ? (snap.data() as UserRecord) : null;
}

/** The platform role lives on the server user record, never in anything the browser sends. */
export async function isSuperAdmin(uid: string): Promise<boolean> {
  return (await getUserRecord(uid))?.role === SUPER_ADMIN;
}
