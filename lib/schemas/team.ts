import { z } from 'zod';
import { ORGANIZATION_ROLES } from '@/lib/permissions';
import { documentIdSchema } from '@/lib/schemas/organization';

const emailSchema = z.email('Enter a valid email address').transform((email) => email.trim().toLowerCase());
export const roleSchema = z.enum(ORGANIZATION_ROLES);
/** Invitations bring people in as members or admins; ownership is handed over from the team list. */
export const invitedRoleSchema = z.enum(['member', 'admin']);

/** How long an invitation stays valid. */
export const INVITATION_TTL_DAYS = 7;

export const sendInvitationSchema = z.object({
  email: emailSchema,
  organization_id: documentIdSchema,
  inviter_user_id: z.string().min(1, 'Required'),
  organization: z.string().trim().max(200).optional(),
  inviter_email: emailSchema,
  role: invitedRoleSchema.default('member'),
});

export const pendingInvitationQuerySchema = z.object({ email: emailSchema });
export const acceptInvitationSchema = z.object({ invitationId: documentIdSchema, userId: z.string().min(1, 'Required') });
export const rejectInvitationSchema = z.object({ invitationId: documentIdSchema });
export const organizationScopedSchema = z.object({ organizationId: documentIdSchema });
export const removeMemberSchema = z.object({ organizationId: documentIdSchema, memberId: z.string().min(1, 'Required') });
export const changeRoleSchema = z.object({ role: roleSchema });

export type InvitationStatus = 'pending' | 'accepted' | 'rejected' | 'revoked' | 'expired';

/** A pending invitation as its invitee sees it (SPEC.md §3: id, organizationName, inviterEmail). */
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
  role: z.infer<typeof roleSchema>;
  joinedAt: string | null;
}

/** SPEC.md §8: what the user reads when an invitation call fails. */
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
