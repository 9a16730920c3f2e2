import { sendInvitationSchema } from '@/lib/shared/schemas/team';
import { forbidden } from '@/lib/server/errors';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { inviteTeammate } from '@/lib/server/services/team';
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
      const sent = await inviteTeammate(
        { id: org.id, name: org.data.company_name ?? org.data.name ?? '' },
        { uid: caller.uid, email: body.inviter_email },
        { email: body.email, role: body.role },
      );
      return { success: true, ...sent };
    },
  }),
});
