import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { FieldValue, Timestamp, type DocumentSnapshot } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { DomainError, notFound } from '@/lib/server/errors';
import { membersCollection, organizationsCollection, toListEntry } from '@/lib/server/repos/organizations';
import { usersCollection } from '@/lib/server/repos/users';
import {
  INVITATION_MESSAGES,
  INVITATION_TTL_DAYS,
  type InvitationPreview,
  type InvitationStatus,
  type PendingInvitation,
  type SentInvitation,
} from '@/lib/shared/team';

export const invitationsCollection = () => adminDb().collection('invitations');

const DAY_MS = 24 * 60 * 60 * 1000;
const expiry = () => Timestamp.fromMillis(Date.now() + INVITATION_TTL_DAYS * DAY_MS);
const iso = (value: unknown) => (value instanceof Timestamp ? value.toDate().toISOString() : null);

// The invitee gets one answer for "no such invitation", "not yours", "not pending" and "expired".
const noPendingInvitation = () => notFound(INVITATION_MESSAGES.none);

function isLive(snap: DocumentSnapshot): boolean {
  const expiresAt = snap.get('expires_at');
  return snap.get('status') === 'pending' && expiresAt instanceof Timestamp && expiresAt.toMillis() > Date.now();
}

const hashToken = (token: string) => createHash('sha256').update(token).digest();

/** A new link secret: the plain token goes into the email only, the invitation keeps its hash. */
function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token).toString('hex') };
}

function carriesToken(snap: DocumentSnapshot, token: string | undefined): boolean {
  if (!token) return false;
  const hashes: unknown = snap.get('token_hashes');
  if (!Array.isArray(hashes)) return false;
  const candidate = hashToken(token);
  return hashes.some((hash) => {
    const stored = typeof hash === 'string' ? Buffer.from(hash, 'hex') : null;
    return stored?.length === candidate.length && timingSafeEqual(stored, candidate);
  });
}

/**
 * Who answers an invitation: the signed-in account's email, whether the provider has seen that email
 * proven, and the secret of the emailed link when the account came through it.
 */
export interface Invitee {
  email: string;
  emailVerified: boolean;
  token?: string;
}

// Anyone can register an address without owning it: holding the invited email is not enough, the
// invitee must also prove it is theirs, by a verified email or by the secret only the email carried.
function isFor(snap: DocumentSnapshot, invitee: Invitee): boolean {
  return snap.get('email') === invitee.email && (invitee.emailVerified || carriesToken(snap, invitee.token));
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

function toPendingInvitation(snap: DocumentSnapshot, organizationName: string): PendingInvitation {
  return {
    id: snap.id,
    organizationId: snap.get('organization_id'),
    organizationName,
    inviterEmail: snap.get('inviter_email'),
    role: snap.get('role') ?? 'member',
    expiresAt: iso(snap.get('expires_at'))!,
  };
}

/** The organizations' names as they are now (an invitation's own copy is from the day it was sent). */
async function currentOrganizationNames(orgIds: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(orgIds)];
  if (unique.length === 0) return new Map();
  const snaps = await adminDb().getAll(...unique.map((orgId) => organizationsCollection().doc(orgId)));
  return new Map(snaps.filter((snap) => snap.exists).map((snap) => [snap.id, toListEntry(snap).company_name]));
}

/** What the invitation email needs, as written: no second read after the write. `token` exists only here. */
export interface InvitationToSend {
  id: string;
  orgId: string;
  email: string;
  organizationName: string;
  inviterEmail: string;
  role: 'member' | 'admin';
  expiresAt: Timestamp;
  token: string;
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
  const { token, hash } = newLinkToken();
  await db.runTransaction(async (tx) => {
    const [members, pending] = await Promise.all([
      tx.get(membersCollection(orgId).where('email', '==', email).limit(1)),
      tx.get(invitationsCollection().where('organization_id', '==', orgId).where('email', '==', email).where('status', '==', 'pending')),
    ]);
    if (!members.empty)
      throw new DomainError('conflict', 'This person is already a member of the organization.', { reason: 'already_member' });
    if (pending.docs.some(isLive)) {
      throw new DomainError('conflict', 'An invitation is already pending for this email. Resend it instead.', {
        reason: 'already_invited',
      });
    }
    tx.create(ref, {
      email,
      role,
      organization_id: orgId,
      organization: organizationName,
      inviter_user_id: inviter.uid,
      inviter_email: inviter.email,
      status: 'pending',
      token_hashes: [hash],
      created_at: FieldValue.serverTimestamp(),
      expires_at: expiresAt,
    });
  });
  return { id: ref.id, orgId, email, organizationName, inviterEmail: inviter.email, role, expiresAt, token };
}

async function candidateInvitations(invitee: Invitee, invitationId: string | undefined): Promise<DocumentSnapshot[]> {
  if (invitee.emailVerified) {
    const snap = await invitationsCollection().where('email', '==', invitee.email).where('status', '==', 'pending').get();
    return snap.docs;
  }
  // Unverified: only the one invitation whose link the caller holds.
  if (!invitationId || !invitee.token) return [];
  const snap = await invitationsCollection().doc(invitationId).get();
  return snap.exists ? [snap] : [];
}

/**
 * The live invitations waiting for the invitee, with their organizations' current names. A verified
 * email sees all of them; an unverified one only the invitation of the link it holds.
 */
export async function listPendingInvitations(invitee: Invitee, invitationId?: string): Promise<PendingInvitation[]> {
  const live = (await candidateInvitations(invitee, invitationId)).filter((snap) => isLive(snap) && isFor(snap, invitee));
  const names = await currentOrganizationNames(live.map((snap) => snap.get('organization_id')));
  return live
    .filter((snap) => names.has(snap.get('organization_id')))
    .map((snap) => toPendingInvitation(snap, names.get(snap.get('organization_id'))!));
}

/**
 * The invitation of an emailed link, for the signed-out landing page: its organization, who sent it and
 * to which email. Only with one of the link's secrets (a resend keeps the earlier ones valid), only while
 * pending and live; every other case (no such invitation, a wrong secret, expired, answered, organization
 * gone) is the same not-found.
 */
export async function previewInvitation(invitationId: string, token: string): Promise<InvitationPreview> {
  const snap = await invitationsCollection().doc(invitationId).get();
  if (!snap.exists || !isLive(snap) || !carriesToken(snap, token)) throw noPendingInvitation();
  const orgId = snap.get('organization_id');
  const names = await currentOrganizationNames([orgId]);
  if (!names.has(orgId)) throw noPendingInvitation();
  const inviterEmail = String(snap.get('inviter_email') ?? '');
  const inviterUid = snap.get('inviter_user_id');
  const inviter = typeof inviterUid === 'string' && inviterUid ? await usersCollection().doc(inviterUid).get() : null;
  const inviterName = String(inviter?.get('fullName') ?? '').trim();
  return { organizationName: names.get(orgId)!, inviterName: inviterName || inviterEmail, email: snap.get('email') };
}

export async function listSentInvitations(orgId: string): Promise<SentInvitation[]> {
  const snap = await invitationsCollection().where('organization_id', '==', orgId).get();
  return snap.docs.map(toSentInvitation).sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
}

/** The invitation for an organization admin's action on it, or 404 when it is another organization's. */
export async function getOrganizationInvitation(orgId: string, invitationId: string): Promise<DocumentSnapshot> {
  const snap = await invitationsCollection().doc(invitationId).get();
  if (!snap.exists || snap.get('organization_id') !== orgId) throw notFound('Invitation not found.');
  return snap;
}

/**
 * Accepts a live invitation addressed to this user's email, once they have proven the email is theirs;
 * the membership is added exactly once.
 */
export async function acceptInvitation(invitationId: string, user: Invitee & { uid: string; fullName: string }) {
  const db = adminDb();
  return db.runTransaction(async (tx) => {
    const ref = invitationsCollection().doc(invitationId);
    const invitation = await tx.get(ref);
    if (!invitation.exists || !isFor(invitation, user) || !isLive(invitation)) throw noPendingInvitation();
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

/** Declines, with the same proof as accepting: a stranger must not be able to turn a team's invitation down. */
export async function rejectInvitation(invitationId: string, invitee: Invitee): Promise<void> {
  await adminDb().runTransaction(async (tx) => {
    const ref = invitationsCollection().doc(invitationId);
    const invitation = await tx.get(ref);
    if (!invitation.exists || !isFor(invitation, invitee) || !isLive(invitation)) throw noPendingInvitation();
    tx.update(ref, { status: 'rejected', updated_at: FieldValue.serverTimestamp() });
  });
}

export async function revokeInvitation(invitation: DocumentSnapshot): Promise<void> {
  if (invitation.get('status') !== 'pending')
    throw new DomainError('conflict', 'Only a pending invitation can be revoked.', { reason: 'not_pending' });
  await invitation.ref.update({ status: 'revoked', updated_at: FieldValue.serverTimestamp() });
}

/**
 * A resend gives the invitation a fresh 7 days (an expired one included) and a new link; the links
 * already sent keep working, and the email names the organization as it is called now.
 */
export async function renewInvitation(invitation: DocumentSnapshot): Promise<InvitationToSend> {
  if (invitation.get('status') !== 'pending')
    throw new DomainError('conflict', 'Only a pending invitation can be resent.', { reason: 'not_pending' });
  const orgId: string = invitation.get('organization_id');
  const expiresAt = expiry();
  const { token, hash } = newLinkToken();
  const [names] = await Promise.all([
    currentOrganizationNames([orgId]),
    invitation.ref.update({ expires_at: expiresAt, token_hashes: FieldValue.arrayUnion(hash), updated_at: FieldValue.serverTimestamp() }),
  ]);
  return {
    id: invitation.id,
    orgId,
    email: invitation.get('email'),
    organizationName: names.get(orgId) ?? invitation.get('organization'),
    inviterEmail: invitation.get('inviter_email'),
    role: invitation.get('role') ?? 'member',
    expiresAt,
    token,
  };
}
