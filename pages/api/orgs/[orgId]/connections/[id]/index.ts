import { updateConnectionSchema } from '@/lib/shared/schemas/connections';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { subscribedPlan } from '@/lib/shared/billing/gate';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { connectionDetail, deleteConnection, updateConnection } from '@/lib/server/services/connections';

/** GET a connection with its runs and written days; PATCH edits, pauses or resumes it; DELETE removes it. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['connection', 'read'],
    handle: ({ org, query }) => connectionDetail(org.id, subscribedPlan(org.data), query.id),
  }),
  PATCH: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: updateConnectionSchema,
    permission: ['connection', 'update'],
    handle: async ({ org, query, body }) => ({
      connection: await updateConnection(org.id, subscribedPlan(org.data), query.id, body),
    }),
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['connection', 'delete'],
    handle: async ({ org, caller, query }) => {
      await deleteConnection(org.id, caller.uid, query.id);
      return { success: true };
    },
  }),
});
