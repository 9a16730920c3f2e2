import { FieldValue, Timestamp, type DocumentSnapshot } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { ApiError } from '@/lib/server/http/errors';
import { membersCollection, organizationsCollection } from '@/lib/server/repos/organizations';
import { INVITATION_MESSAGES, INVITATION_TTL_DAYS, type InvitationStatus, type PendingInvitation, type SentInvitation } from '@/lib/team';

export const invitationsCollection = () => adminDb().collection('invitations');

const DAY_MS = 24 * 60 * 60 * 1000;
const expiry = () => Timestamp.fromMillis(Date.now() + INVITATION_TTL_DAYS * DAY_MS);
const iso = (value: unknown) => (value instanceof Timestamp ? value.toDate().toISOString() : null);

// The invitee gets one answer for "no such invitation", "not yours", "not pending" and "expired".
const noPendingInvitation = () => new ApiError(404, 'not_found', INVITATION_MESSAGES.none);

function isLive(snap: DocumentSnapshot): boolean {
  const expiresAt = snap.get('expires_at');
  return snap.get('status') === 'pending' && expiresAt instanceof Timestamp && expiresAt.toMillis() > Date.now();
}

function toSentInvitation(snap: DocumentSnapshot): SentInvitation {
  const status = snap.get('status') as InvitationStatus;
  return {
    id: snap.id,
    email: snap.get('email'),
    role: snap.get('role') ?? 'member',
    status: status === 'pending' && !isLive(snap) ? 'expired' : status,
    inviterEmail: snap.get('inviter_email'),
    createdAt: iso(snap.get('created_at')),
    expiresAt: iso(snap.get('expires_at'))!,
  };
}

function toPendingInvitation(snap: DocumentSnapshot): PendingInvitation {
  return {
    id: snap.id,
    organizationId: snap.get('organization_id'),
    organizationName: snap.get('organization'),
    inviterEmail: snap.get('inviter_email'),
    role: snap.get('role') ?? 'member',
    expiresAt: iso(snap.get('expires_at'))!,
  };
}

/** What the invitation email needs, as written: no second read after the write. */
export interface InvitationToSend {
  id: string;
  orgId: string;
  email: string;
  organizationName: string;
  inviterEmail: string;
  role: 'member' | 'admin';
  expiresAt: Timestamp;
}

function toSend(snap: DocumentSnapshot, expiresAt: Timestamp): InvitationToSend {
  return {
    id: snap.id,
    orgId: snap.get('organization_id'),
    email: snap.get('email'),
    organizationName: snap.get('organization'),
    inviterEmail: snap.get('inviter_email'),
    role: snap.get('role') ?? 'member',
    expiresAt,
  };
}

interface NewInvitation {
  orgId: string;
  organizationName: string;
  email: string;
  role: 'member' | 'admin';
  inviter: { uid: string; email: string };
}

/**
 * Creates a pending invitation unless the email already belongs to a member or has a live
 * invitation to this organization. The check and the write share one transaction.
 */
export async function createInvitation({ orgId, organizationName, email, role, inviter }: NewInvitation): Promise<InvitationToSend> {
  const db = adminDb();
  const ref = invitationsCollection().doc();
  const expiresAt = expiry();
  await db.runTransaction(async (tx) => {
    const [members, pending] = await Promise.all([
      tx.get(membersCollection(orgId).where('email', '==', email).limit(1)),
      tx.get(
        invitationsCollection()
          .where('organization_id', '==', orgId)
          .where('email', '==', email)
          .where('status', '==', 'pending'),
      ),
    ]);
    if (!members.empty) throw new ApiError(409, 'already_member', 'This person is already a member of the organization.');
    if (pending.docs.some(isLive)) {
      throw new ApiError(409, 'already_invited', 'An invitation is already pending for this email. Resend it instead.');
    }
    tx.create(ref, {
      email,
      role,
      organization_id: orgId,
      organization: organizationName,
      inviter_user_id: inviter.uid,
      inviter_email: inviter.email,
      status: 'pending',
      created_at: FieldValue.serverTimestamp(),
      expires_at: expiresAt,
    });
  });
  return { id: ref.id, orgId, email, organizationName, inviterEmail: inviter.email, role, expiresAt };
}

export async function listPendingInvitations(email: string): Promise<PendingInvitation[]> {
  const snap = await invitationsCollection().where('email', '==', email).where('status', '==', 'pending').get();
  return snap.docs.filter(isLive).map(toPendingInvitation);
}

export async function listSentInvitations(orgId: string): Promise<SentInvitation[]> {
  const snap = await invitationsCollection().where('organization_id', '==', orgId).get();
  return snap.docs
    .map(toSentInvitation)
    .sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
}

/** The invitation for an organization admin's action on it, or 404 when it is another organization's. */
export async function getOrganizationInvitation(orgId: string, invitationId: string): Promise<DocumentSnapshot> {
  const snap = await invitationsCollection().doc(invitationId).get();
  if (!snap.exists || snap.get('organization_id') !== orgId) throw new ApiError(404, 'not_found', 'Invitation not found.');
  return snap;
}

/** Accepts a live invitation addressed to this user's email; the membership is added exactly once. */
export async function acceptInvitation(invitationId: string, user: { uid: string; email: string; fullName: string }) {
  const db = adminDb();
  return db.runTransaction(async (tx) => {
    const ref = invitationsCollection().doc(invitationId);
    const invitation = await tx.get(ref);
    if (!invitation.exists || invitation.get('email') !== user.email || !isLive(invitation)) throw noPendingInvitation();
    const orgId: string = invitation.get('organization_id');
    const memberRef = membersCollection(orgId).doc(user.uid);
    const [org, member] = await Promise.all([tx.get(organizationsCollection().doc(orgId)), tx.get(memberRef)]);
    if (!org.exists) throw noPendingInvitation();
    if (!member.exists) {
      tx.create(memberRef, {
        uid: user.uid,
        role: invitation.get('role') ?? 'member',
        email: user.email,
        fullName: user.fullName,
        joined_at: FieldValue.serverTimestamp(),
      });
    }
    tx.update(ref, { status: 'accepted', accepted_by: user.uid, updated_at: FieldValue.serverTimestamp() });
    return { organizationId: orgId };
  });
}

export async function rejectInvitation(invitationId: string, email: string): Promise<void> {
  await adminDb().runTransaction(async (tx) => {
    const ref = invitationsCollection().doc(invitationId);
    const invitation = await tx.get(ref);
    if (!invitation.exists || invitation.get('email') !== email || !isLive(invitation)) throw noPendingInvitation();
    tx.update(ref, { status: 'rejected', updated_at: FieldValue.serverTimestamp() });
  });
}

export async function revokeInvitation(invitation: DocumentSnapshot): Promise<void> {
  if (invitation.get('status') !== 'pending') throw new ApiError(409, 'not_pending', 'Only a pending invitation can be revoked.');
  await invitation.ref.update({ status: 'revoked', updated_at: FieldValue.serverTimestamp() });
}

/** A resend gives the invitation a fresh 7 days (an expired one included). */
export async function renewInvitation(invitation: DocumentSnapshot): Promise<InvitationToSend> {
  if (invitation.get('status') !== 'pending') throw new ApiError(409, 'not_pending', 'Only a pending invitation can be resent.');
  const expiresAt = expiry();
  await invitation.ref.update({ expires_at: expiresAt, updated_at: FieldValue.serverTimestamp() });
  return toSend(invitation, expiresAt);
}
