import { failureThresholdSchema } from '@/lib/shared/schemas/alerts';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { failureThreshold, saveFailureThreshold } from '@/lib/server/alerts/settings';

/** GET the conversion's alert threshold; PUT { percent, minEvents } changes it. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['conversion', 'read'],
    handle: async ({ org, query }) => ({ threshold: await failureThreshold(org.id, query.id) }),
  }),
  PUT: route({
    access: 'orgMember',
    query: objectRouteSchema,
    body: failureThresholdSchema,
    permission: ['conversion', 'update'],
    handle: async ({ org, query, body }) => ({ threshold: await saveFailureThreshold(org.id, query.id, body) }),
  }),
});
