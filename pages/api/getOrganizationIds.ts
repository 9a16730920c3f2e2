import { organizationIdsQuerySchema } from '@/lib/shared/schemas/organization';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listOrganizations } from '@/lib/server/services/organizations';

export default createHandler({
  GET: route({
    access: 'signedIn',
    query: organizationIdsQuerySchema,
    async handle({ caller, query }) {
      return { success: true, ...(await listOrganizations(caller.uid, query)) };
    },
  }),
});
