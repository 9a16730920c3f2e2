import { invitationRouteSchema } from '@/lib/shared/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { emailInvitation } from '@/lib/server/invitationEmail';
import { consumeRateLimits, invitationLimits } from '@/lib/server/limits/rateLimit';
import { getOrganizationInvitation, renewInvitation } from '@/lib/server/repos/invitations';

/** POST sends a pending invitation again, valid for another 7 days. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    query: invitationRouteSchema,
    permission: ['invitation', 'update'],
    async handle({ caller, org, query }) {
      const invitation = await getOrganizationInvitation(org.id, query.invitationId);
      await consumeRateLimits(invitationLimits(caller.uid, org.id));
      const emailSent = await emailInvitation(await renewInvitation(invitation));
      return { success: true, emailSent };
    },
  }),
});
