import { appFieldsSchema } from '@/lib/shared/schemas/integrations';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { createApp, listApps } from '@/lib/server/repos/apps';

export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    permission: ['app', 'read'],
    preload: ({ orgId }) => listApps(orgId),
    handle: ({ preloaded }) => ({ apps: preloaded }),
  }),
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: appFieldsSchema,
    permission: ['app', 'create'],
    handle: async ({ org, caller, body }) => ({ app: await createApp(org.id, caller.uid, body) }),
  }),
});
