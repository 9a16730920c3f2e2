import { organizationScopedSchema } from '@/lib/shared/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listSentInvitations } from '@/lib/server/repos/invitations';

export default createHandler({
  POST: route({
    access: 'orgMember',
    body: organizationScopedSchema,
    orgId: ({ body }) => body.organizationId,
    permission: ['invitation', 'read'],
    handle: async ({ org }) => ({ success: true, invitations: await listSentInvitations(org.id) }),
  }),
});
