import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { replaceSubmissionKey, revokeAppKey } from '@/lib/server/services/apps';

/**
 * POST makes a new custom-submission key (shown once, the old one stops working); DELETE revokes it.
 * Either stops whatever posts with the live key, as deleting the app would: owners and admins only.
 */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['app', 'delete'],
    handle: ({ org, query }) => replaceSubmissionKey(org.id, query.id),
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['app', 'delete'],
    handle: async ({ org, query }) => ({ app: await revokeAppKey(org.id, query.id, 'submission') }),
  }),
});
