import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { appUrl } from '@/lib/server/appUrl';
import { captureSnippet } from '@/lib/server/delivery/snippet';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ensurePublishableKey, getApp } from '@/lib/server/repos/apps';

/**
 * GET the app's website capture snippet (a Google Tag Manager Custom HTML tag) with its publishable
 * key, made on first use: the key can only submit events, only from the app's website.
 */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['app', 'update'],
    handle: async ({ org, query }) => {
      const app = await getApp(org.id, query.id);
      const publishableKey = await ensurePublishableKey(org.id, app.id);
      return {
        publishableKey,
        snippet: captureSnippet({
          endpoint: appUrl('/api/submissions'),
          publishableKey,
          payloadPaths: app.payloadUrls,
          customFields: app.customFields,
        }),
      };
    },
  }),
});
