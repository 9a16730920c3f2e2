import { invitationRouteSchema } from '@/lib/shared/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { resendInvitation } from '@/lib/server/services/team';

/** POST sends a pending invitation again, valid for another 7 days. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    query: invitationRouteSchema,
    permission: ['invitation', 'update'],
    async handle({ caller, org, query }) {
      return { success: true, ...(await resendInvitation(org.id, caller.uid, query.invitationId)) };
    },
  }),
});
