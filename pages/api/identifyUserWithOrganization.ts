import { identifyWithOrganizationSchema } from '@/lib/shared/schemas/analytics';
import { assertSelf } from '@/lib/server/access';
import { identifyUser } from '@/lib/server/analytics';
import { createHandler, route } from '@/lib/server/http/createHandler';

export default createHandler({
  POST: route({
    access: 'orgMember',
    body: identifyWithOrganizationSchema,
    orgId: ({ body }) => body.organizationId,
    permission: ['organization', 'read'],
    async handle({ caller, org, body, res }) {
      assertSelf(caller.uid, body.userId);
      const ok = await identifyUser(caller.uid, {
        org_id: org.id,
        org_name: org.data.company_name ?? org.data.name ?? '',
        org_role: org.role,
      });
      res.status(ok ? 200 : 502).json(ok ? { message: 'User identified with organization' } : { error: 'Could not reach Customer.io' });
    },
  }),
});
