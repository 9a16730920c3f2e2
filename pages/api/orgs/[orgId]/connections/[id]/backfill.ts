import { backfillSchema } from '@/lib/shared/schemas/connections';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { subscribedPlan } from '@/lib/shared/billing/gate';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { cancelBackfill, startBackfill } from '@/lib/server/services/connections';

/** POST starts a historical backfill from a day; DELETE cancels the one in progress. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: backfillSchema,
    permission: ['connection', 'update'],
    handle: ({ org, caller, query, body }) => startBackfill(org.id, subscribedPlan(org.data), caller.uid, query.id, body.from),
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['connection', 'update'],
    handle: async ({ org, query }) => {
      await cancelBackfill(org.id, query.id);
      return { success: true };
    },
  }),
});
