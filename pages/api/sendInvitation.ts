import { sendInvitationSchema } from '@/lib/shared/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { forbidden } from '@/lib/server/http/errors';
import { emailInvitation } from '@/lib/server/invitationEmail';
import { consumeRateLimits, invitationLimits } from '@/lib/server/limits/rateLimit';
import { createInvitation } from '@/lib/server/repos/invitations';
import { canAssignRole } from '@/lib/shared/permissions';

export default createHandler({
  POST: route({
    access: 'orgMember',
    body: sendInvitationSchema,
    orgId: ({ body }) => body.organization_id,
    permission: ['invitation', 'create'],
    async handle({ caller, org, body }) {
      // The inviter fields must describe the caller; the organization's name comes from its document.
      if (body.inviter_user_id !== caller.uid || body.inviter_email !== caller.email?.toLowerCase()) throw forbidden();
      if (!canAssignRole(org.role, body.role)) throw forbidden();
      await consumeRateLimits(invitationLimits(caller.uid, org.id));
      const invitation = await createInvitation({
        orgId: org.id,
        organizationName: org.data.company_name ?? org.data.name ?? '',
        email: body.email,
        role: body.role,
        inviter: { uid: caller.uid, email: body.inviter_email },
      });
      const emailSent = await emailInvitation(invitation);
      return { success: true, invitationId: invitation.id, emailSent };
    },
  }),
});
