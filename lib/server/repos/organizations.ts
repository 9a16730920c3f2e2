import type { DocumentData } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { isOrganizationRole, type OrganizationRole } from '@/lib/permissions';

export const organizationsCollection = () => adminDb().collection('organizations');
export const membersCollection = (orgId: string) => organizationsCollection().doc(orgId).collection('members');

export interface OrganizationWithMembership {
  organization: DocumentData | null;
  role: OrganizationRole | null;
}

/** The organization and the caller's membership in one round trip. */
export async function getOrganizationWithMembership(orgId: string, uid: string): Promise<OrganizationWithMembership> {
  const orgRef = organizationsCollection().doc(orgId);
  const [orgSnap, memberSnap] = await adminDb().getAll(orgRef, orgRef.collection('members').doc(uid));
  const role = memberSnap?.get('role');
  return {
    organization: orgSnap?.exists ? (orgSnap.data() ?? null) : null,
    role: memberSnap?.exists && isOrganizationRole(role) ? role : null,
  };
}
