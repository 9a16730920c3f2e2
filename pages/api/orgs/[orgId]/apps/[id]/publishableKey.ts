import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { appUrl } from '@/lib/server/appUrl';
import { captureSnippet } from '@/lib/server/delivery/snippet';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { getApp } from '@/lib/server/repos/apps';
import { replacePublishableKey, revokeAppKey } from '@/lib/server/services/apps';

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
      const publishableKey = await replacePublishableKey(org.id, query.id);
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
    handle: async ({ org, query }) => ({ app: await revokeAppKey(org.id, query.id, 'publishable') }),
  }),
});
