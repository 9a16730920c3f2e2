import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { runNow } from '@/lib/server/services/connections';

/** POST starts a run now ("Run now"); 409 while one is in progress. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['connection', 'update'],
    handle: ({ org, query }) => runNow(org.id, query.id),
  }),
});
