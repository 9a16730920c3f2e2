import { testConnectionSchema } from '@/lib/shared/schemas/connections';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { testConnection } from '@/lib/server/services/connections';

/** POST reads the last 7 days of one account and checks the destination, writing nothing. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: testConnectionSchema,
    permission: ['connection', 'read'],
    handle: ({ org, query, body }) => testConnection(org.id, query.id, body.accountId),
  }),
});
