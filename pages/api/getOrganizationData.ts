import { organizationDataQuerySchema } from '@/lib/shared/schemas/organization';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listApps } from '@/lib/server/repos/apps';
import { listIntegrations } from '@/lib/server/repos/integrations';
import { toOrganizationDocument } from '@/lib/server/repos/organizationDocument';
import { listPayments } from '@/lib/server/repos/payments';

const lists = {
  sources: (orgId: string) => listIntegrations(orgId, 'source'),
  destinations: (orgId: string) => listIntegrations(orgId, 'destination'),
  payments: listPayments,
  apps: listApps,
};

/** GET ?documentId={orgId}&type=organization|sources|destinations|payments|apps → { data, status }. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    query: organizationDataQuerySchema,
    orgId: ({ query }) => query.documentId,
    permission: ['organization', 'read'],
    async handle({ org, query }) {
      // `role` is the caller's, so the UI can hide what it may not use (the handlers refuse it anyway).
      if (query.type === 'organization') return { data: toOrganizationDocument(org.id, org.data), status: 200, role: org.role };
      return { data: await lists[query.type](org.id), status: 200, role: org.role };
    },
  }),
});
