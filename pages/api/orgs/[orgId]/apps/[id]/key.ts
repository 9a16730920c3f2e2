import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { revokeSubmissionKey, rotateSubmissionKey } from '@/lib/server/repos/apps';
import { forgetApp } from '@/lib/server/services/ingest';

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
    handle: async ({ org, query }) => {
      const made = await rotateSubmissionKey(org.id, query.id);
      // Ingest keeps keys a few seconds per instance: this one stops trusting the old key now.
      forgetApp(query.id);
      return made;
    },
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['app', 'delete'],
    handle: async ({ org, query }) => {
      const app = await revokeSubmissionKey(org.id, query.id);
      forgetApp(query.id);
      return { app };
    },
  }),
});
