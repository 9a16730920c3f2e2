import { updateAppSchema } from '@/lib/shared/schemas/integrations';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { getApp } from '@/lib/server/repos/apps';
import { deleteApp, editApp } from '@/lib/server/services/apps';

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
    handle: async ({ org, query, body }) => ({ app: await editApp(org.id, query.id, body) }),
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['app', 'delete'],
    async handle({ org, query }) {
      await deleteApp(org.id, query.id);
      return { success: true };
    },
  }),
});
