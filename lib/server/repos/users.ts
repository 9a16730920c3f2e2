import { FieldValue } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { SUPER_ADMIN } from '@/lib/shared/permissions';

/** The server user record (docs/PRODUCT.md §4). */
export interface UserRecord {
  email: string;
  fullName: string;
  uid: string;
  photoURL: string;
  role?: typeof SUPER_ADMIN;
}

export const usersCollection = () => adminDb().collection('users');

function toUserRecord(data: FirebaseFirestore.DocumentData): UserRecord {
  return {
    email: data.email ?? '',
    fullName: data.fullName ?? '',
    uid: data.uid,
    photoURL: data.photoURL ?? '',
    ...(data.role === SUPER_ADMIN ? { role: SUPER_ADMIN } : {}),
  };
}

export async function getUserRecord(uid: string): Promise<UserRecord | null> {
  const snap = await usersCollection().doc(uid).get();
  return snap.exists ? toUserRecord(snap.data()!) : null;
}

/** The platform role lives on the server user record, never in anything the browser sends. */
export async function isSuperAdmin(uid: string): Promise<boolean> {
  return (await getUserRecord(uid))?.role === SUPER_ADMIN;
}

/** Creates the record only if none exists (one atomic create), and says whether it did. */
export async function getOrCreateUserRecord(record: Omit<UserRecord, 'role'>): Promise<{ user: UserRecord; created: boolean }> {
  const ref = usersCollection().doc(record.uid);
  try {
    await ref.create({ ...record, created_at: FieldValue.serverTimestamp() });
    return { user: record, created: true };
  } catch (error) {
    // gRPC ALREADY_EXISTS: someone (this user, in another tab) got there first.
    if ((error as { code?: number }).code !== 6) throw error;
    return { user: (await getUserRecord(record.uid))!, created: false };
  }
}
