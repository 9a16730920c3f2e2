import { organizationDataQuerySchema } from '@/lib/schemas/organization';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { toOrganizationDocument } from '@/lib/server/repos/organizationDocument';

export default createHandler({
  GET: route({
    access: 'orgMember',
    query: organizationDataQuerySchema,
    orgId: ({ query }) => query.documentId,
    permission: ['organization', 'read'],
    // `role` is the caller's, so the UI can hide what it may not use (the handlers refuse it anyway).
    handle: ({ org }) => ({ data: toOrganizationDocument(org.id, org.data), status: 200, role: org.role }),
  }),
});
