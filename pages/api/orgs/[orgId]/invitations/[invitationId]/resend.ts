import { z } from 'zod';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { emailInvitation } from '@/lib/server/invitationEmail';
import { getOrganizationInvitation, renewInvitation } from '@/lib/server/repos/invitations';

/** POST sends a pending invitation again, valid for another 7 days. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    query: z.object({ orgId: z.string(), invitationId: z.string() }),
    permission: ['invitation', 'update'],
    async handle({ org, query }) {
      const invitation = await getOrganizationInvitation(org.id, query.invitationId);
      const emailSent = await emailInvitation(await renewInvitation(invitation));
      return { success: true, emailSent };
    },
  }),
});
