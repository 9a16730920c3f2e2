import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { appUrl } from '@/lib/server/appUrl';
import { captureSnippet } from '@/lib/server/delivery/snippet';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { getApp, revokePublishableKey, rotatePublishableKey } from '@/lib/server/repos/apps';
import { forgetApp } from '@/lib/server/services/ingest';

/**
 * The website snippet's publishable key. POST makes a new one (the old one stops working; the answer
 * holds the new snippet to paste); DELETE revokes it (the snippet stops submitting). Either stops the
 * website's events until the new snippet is live: owners and admins only, as for the secret key.
 */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['app', 'delete'],
    handle: async ({ org, query }) => {
      const publishableKey = await rotatePublishableKey(org.id, query.id);
      // Ingest keeps keys a few seconds per instance: this one stops trusting the old key now.
      forgetApp(query.id);
      const app = await getApp(org.id, query.id);
      return {
        app,
        publishableKey,
        snippet: captureSnippet({ endpoint: appUrl('/api/submissions'), publishableKey, payloadPaths: app.payloadUrls }),
      };
    },
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['app', 'delete'],
    handle: async ({ org, query }) => {
      const app = await revokePublishableKey(org.id, query.id);
      forgetApp(query.id);
      return { app };
    },
  }),
});
