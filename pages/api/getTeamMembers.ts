import { organizationScopedSchema } from '@/lib/shared/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listMembers } from '@/lib/server/repos/members';

export default createHandler({
  POST: route({
    access: 'orgMember',
    body: organizationScopedSchema,
    orgId: ({ body }) => body.organizationId,
    permission: ['member', 'read'],
    handle: async ({ org }) => ({ success: true, members: await listMembers(org.id) }),
  }),
});
