import { countedThresholdSchema } from '@/lib/shared/schemas/reconciliation';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { conversionReconciliation, saveCountedThreshold } from '@/lib/server/repos/reconciliation';

/**
 * GET "Counted by the platform" of one conversion: `{ reconciliation: { platform, summary, threshold, attribution, days } }`
 * (the days read, the last 30 days of the ad account); PUT `{ threshold }` sets the share received (%) under which it alerts.
 */
export default createHandler({
  GET: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['conversion', 'read'],
    handle: async ({ org, query }) => ({ reconciliation: await conversionReconciliation(org.id, query.id) }),
  }),
  PUT: route({
    access: 'orgMember',
    query: objectRouteSchema,
    body: countedThresholdSchema,
    permission: ['conversion', 'update'],
    handle: async ({ org, query, body }) => {
      await saveCountedThreshold(org.id, query.id, body.threshold);
      return { threshold: body.threshold };
    },
  }),
});
