import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { organizationProfileSchema } from '@/lib/shared/schemas/organization';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { updateOrganizationProfile } from '@/lib/server/repos/organizations';

/** PATCH { companyName, company_logo } renames the organization or changes its logo. */
export default createHandler({
  PATCH: route({
    access: 'orgMember',
    query: orgRouteSchema,
    body: organizationProfileSchema,
    permission: ['organization', 'update'],
    async handle({ org, body }) {
      await updateOrganizationProfile(org.id, { name: body.companyName, logo: body.company_logo });
      return { success: true };
    },
  }),
});
