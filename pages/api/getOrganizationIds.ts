import { organizationIdsQuerySchema } from '@/lib/shared/schemas/organization';
import { forbidden } from '@/lib/server/errors';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listAllOrganizations, listOrganizationsOfUser } from '@/lib/server/repos/organizations';
import { isSuperAdmin } from '@/lib/server/repos/users';

export default createHandler({
  GET: route({
    access: 'signedIn',
    query: organizationIdsQuerySchema,
    async handle({ caller, query }) {
      const superAdmin = query.superadmin || query.userId !== caller.uid ? await isSuperAdmin(caller.uid) : false;
      // Another user's list, or every organization, only for a real super admin.
      if (query.userId !== caller.uid && !superAdmin) throw forbidden();
      if (query.superadmin && superAdmin) {
        const page = await listAllOrganizations({ search: query.search, cursor: query.cursor });
        return { success: true, ...page };
      }
      return { success: true, organizations: await listOrganizationsOfUser(query.userId), nextCursor: null };
    },
  }),
});
