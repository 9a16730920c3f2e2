import { z } from 'zod';
import { ORGANIZATION_ROLES } from '@/lib/shared/permissions';
import { documentIdSchema } from '@/lib/shared/schemas/ids';
import { EMAIL_MAX_LENGTH, INVITATION_TOKEN_PATTERN } from '@/lib/shared/team';

const emailSchema = z
  .email('Enter a valid email address')
  .max(EMAIL_MAX_LENGTH, `An email address has at most ${EMAIL_MAX_LENGTH} characters`)
  .transform((email) => email.trim().toLowerCase());
export const roleSchema = z.enum(ORGANIZATION_ROLES);
/** Invitations bring people in as members or admins; ownership is handed over from the team list. */
export const invitedRoleSchema = z.enum(['member', 'admin']);

export const sendInvitationSchema = z.object({
  email: emailSchema,
  organization_id: documentIdSchema,
  inviter_user_id: documentIdSchema,
  organization: z.string().trim().max(200).optional(),
  inviter_email: emailSchema,
  role: invitedRoleSchema.default('member'),
});

/** The secret of an emailed invitation link: optional beside the fixed fields of the invitation calls. */
const linkTokenSchema = z.string().regex(INVITATION_TOKEN_PATTERN, 'Invalid invitation link').optional();

/** A signed-out preview of an invitation: only with the secret of its emailed link. */
export const invitationPreviewSchema = z.object({
  invitationId: documentIdSchema,
  token: z.string().regex(INVITATION_TOKEN_PATTERN, 'Invalid invitation link'),
});

/** The fixed `email`, plus the invitation and secret of the link an unverified invitee came through. */
export const pendingInvitationQuerySchema = z.object({
  email: emailSchema,
  invitationId: documentIdSchema.optional(),
  token: linkTokenSchema,
});
export const acceptInvitationSchema = z.object({ invitationId: documentIdSchema, userId: documentIdSchema, token: linkTokenSchema });
export const rejectInvitationSchema = z.object({ invitationId: documentIdSchema, token: linkTokenSchema });
export const organizationScopedSchema = z.object({ organizationId: documentIdSchema });
export const removeMemberSchema = z.object({ organizationId: documentIdSchema, memberId: documentIdSchema });
export const changeRoleSchema = z.object({ role: roleSchema });
/** The route segments of /api/orgs/{orgId}/members/{memberId} and /invitations/{invitationId}. */
export const memberRouteSchema = z.object({ orgId: documentIdSchema, memberId: documentIdSchema });
export const invitationRouteSchema = z.object({ orgId: documentIdSchema, invitationId: documentIdSchema });
