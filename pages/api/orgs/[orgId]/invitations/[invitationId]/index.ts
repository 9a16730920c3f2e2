import { invitationRouteSchema } from '@/lib/shared/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { getOrganizationInvitation, revokeInvitation } from '@/lib/server/repos/invitations';

/** DELETE revokes a pending invitation of this organization. */
export default createHandler({
  DELETE: route({
    access: 'orgMember',
    query: invitationRouteSchema,
    permission: ['invitation', 'delete'],
    async handle({ org, query }) {
      await revokeInvitation(await getOrganizationInvitation(org.id, query.invitationId));
      return { success: true };
    },
  }),
});
