import { createConnectionSchema } from '@/lib/shared/schemas/connections';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { subscribedPlan } from '@/lib/shared/billing/gate';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { createConnection, listConnections } from '@/lib/server/services/connections';

/** GET lists the organization's connections; POST creates one (its first run is due at once). */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    permission: ['connection', 'read'],
    handle: async ({ org }) => ({ connections: await listConnections(org.id) }),
  }),
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: createConnectionSchema,
    permission: ['connection', 'create'],
    handle: async ({ org, caller, body }) => ({
      connection: await createConnection(org.id, subscribedPlan(org.data), caller.uid, body),
    }),
  }),
});
