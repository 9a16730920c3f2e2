import { documentIdSchema, objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { runDetail } from '@/lib/server/services/runs';

/** GET one run of a connection: per account rows, calls, time and error, and its jobs. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema.extend({ runId: documentIdSchema }),
    permission: ['connection', 'read'],
    handle: ({ org, query }) => runDetail(org.id, query.id, query.runId),
  }),
});
