import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { canAssignRole, canManageMember, isOrganizationRole, type OrganizationRole, type Role } from '@/lib/shared/permissions';
import { DomainError, forbidden, notFound } from '@/lib/server/errors';
import { membersCollection } from '@/lib/server/repos/organizations';
import { LAST_OWNER_MESSAGE, type TeamMember } from '@/lib/shared/team';

const memberNotFound = () => notFound('Member not found.');
const lastOwner = () => new DomainError('conflict', LAST_OWNER_MESSAGE, { reason: 'last_owner' });

export async function listMembers(orgId: string): Promise<TeamMember[]> {
  const snap = await membersCollection(orgId).get();
  return snap.docs
    .map((doc) => ({
      uid: doc.id,
      // Sign-up leaves the full name optional: a member without one is named by their email.
      name: String(doc.get('fullName') ?? '').trim() || String(doc.get('email') ?? ''),
      email: doc.get('email') ?? '',
      role: isOrganizationRole(doc.get('role')) ? doc.get('role') : 'member',
      joinedAt: doc.get('joined_at') instanceof Timestamp ? (doc.get('joined_at') as Timestamp).toDate().toISOString() : null,
    }))
    .sort((a, b) => a.email.localeCompare(b.email));
}

/** Owners left after `memberId` stops being one; read inside the transaction that changes it. */
async function otherOwners(tx: FirebaseFirestore.Transaction, orgId: string, memberId: string): Promise<number> {
  const owners = await tx.get(membersCollection(orgId).where('role', '==', 'owner'));
  return owners.docs.filter((doc) => doc.id !== memberId).length;
}

/**
 * Removes a member. Anyone may leave; removing someone else takes the member permission and at
 * least their rank; the last owner stays.
 */
export async function removeMember(orgId: string, memberId: string, actor: { uid: string; role: Role }): Promise<void> {
  await adminDb().runTransaction(async (tx) => {
    const ref = membersCollection(orgId).doc(memberId);
    const member = await tx.get(ref);
    if (!member.exists) throw memberNotFound();
    const role = member.get('role') as OrganizationRole;
    if (memberId !== actor.uid && !canManageMember(actor.role, role)) throw forbidden();
    if (role === 'owner' && (await otherOwners(tx, orgId, memberId)) === 0) throw lastOwner();
    tx.delete(ref);
  });
}

/** Changes a member's role: never above the actor's own, never on a higher rank, never the last owner away. */
export async function changeMemberRole(
  orgId: string,
  memberId: string,
  role: OrganizationRole,
  actor: { uid: string; role: Role },
): Promise<void> {
  await adminDb().runTransaction(async (tx) => {
    const ref = membersCollection(orgId).doc(memberId);
    const member = await tx.get(ref);
    if (!member.exists) throw memberNotFound();
    const current = member.get('role') as OrganizationRole;
    if (!canManageMember(actor.role, current) || !canAssignRole(actor.role, role)) throw forbidden();
    if (current === 'owner' && role !== 'owner' && (await otherOwners(tx, orgId, memberId)) === 0) throw lastOwner();
    tx.update(ref, { role, updated_at: FieldValue.serverTimestamp() });
  });
}
