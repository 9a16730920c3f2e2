import type { OrganizationRole } from '@/lib/shared/permissions';

/** Invitations and teams: constants and shapes shared by the browser and the server (no zod here). */
/** How long an invitation stays valid. */
export const INVITATION_TTL_DAYS = 7;

/** RFC 5321 caps an address at 254 characters; a longer one cannot receive the email anyway. */
export const EMAIL_MAX_LENGTH = 254;

/**
 * The invitation link `/{orgId}/acceptInvitation/{id}?token=…` carries a secret only the email has:
 * with it, an account whose email is not verified yet may still answer its own invitation.
 */
export const INVITATION_TOKEN_PARAM = 'token';
/** 32 random bytes, base64url (43 characters); a little slack for future lengths. */
export const INVITATION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

export type InvitationStatus = 'pending' | 'accepted' | 'rejected' | 'revoked' | 'expired';

/** A pending invitation as its invitee sees it (docs/PRODUCT.md §4: id, organizationName, inviterEmail). */
export interface PendingInvitation {
  id: string;
  organizationId: string;
  organizationName: string;
  inviterEmail: string;
  role: 'member' | 'admin';
  expiresAt: string;
}

/** An invitation as the organization's admins see it. */
export interface SentInvitation {
  id: string;
  email: string;
  role: 'member' | 'admin';
  status: InvitationStatus;
  inviterEmail: string;
  createdAt: string | null;
  expiresAt: string;
}

export interface TeamMember {
  uid: string;
  name: string;
  email: string;
  role: OrganizationRole;
  joinedAt: string | null;
}

/** Why the last owner may neither leave nor be removed or demoted: the server's refusal, and the page's warning before it. */
export const LAST_OWNER_MESSAGE = 'An organization needs an owner: make someone else owner first.';

/** docs/PRODUCT.md §7: what the user reads when an invitation call fails. */
export const INVITATION_MESSAGES = {
  send: 'Error sending invitation.',
  pending: 'Error getting pending invitations.',
  accept: 'Error accepting invitation.',
  reject: 'Error rejecting invitation.',
  remove: 'Error removing member from organization.',
  sent: 'Error getting sent invitations.',
  check: 'Error checking invitation',
  none: 'No pending invitations found',
  noneForUser: 'No pending invitations found for this user',
} as const;

/** What a signed-out visitor holding an invitation link's secret may read: whom it is for, from whom, to where. */
export interface InvitationPreview {
  organizationName: string;
  inviterName: string;
  email: string;
}
