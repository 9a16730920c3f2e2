import { updateAppSchema } from '@/lib/shared/schemas/integrations';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { getApp, updateApp } from '@/lib/server/repos/apps';
import { deleteApp } from '@/lib/server/services/apps';
import { forgetApp } from '@/lib/server/services/ingest';

export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['app', 'read'],
    handle: async ({ org, query }) => ({ app: await getApp(org.id, query.id) }),
  }),
  PATCH: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: updateAppSchema,
    permission: ['app', 'update'],
    handle: async ({ org, query, body }) => {
      const app = await updateApp(org.id, query.id, body);
      forgetApp(app.id);
      return { app };
    },
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['app', 'delete'],
    async handle({ org, query }) {
      await deleteApp(org.id, query.id);
      forgetApp(query.id);
      return { success: true };
    },
  }),
});
