import { z } from 'zod';
import { ORGANIZATION_ROLES } from '@/lib/permissions';
import { documentIdSchema } from '@/lib/schemas/organization';

const emailSchema = z.email('Enter a valid email address').transform((email) => email.trim().toLowerCase());
export const roleSchema = z.enum(ORGANIZATION_ROLES);
/** Invitations bring people in as members or admins; ownership is handed over from the team list. */
export const invitedRoleSchema = z.enum(['member', 'admin']);

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
