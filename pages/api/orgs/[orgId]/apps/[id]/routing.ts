import { z } from 'zod';
import { AD_PLATFORMS, isAdPlatform } from '@/lib/shared/integrations/platforms';
import { appTargetSchema, appWarehouseSchema } from '@/lib/shared/schemas/integrations';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { subscribedPlan } from '@/lib/shared/billing/gate';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { clearAppTarget, setAppTarget, setAppWarehouse } from '@/lib/server/services/apps';

/**
 * PUT: where one platform's conversions of the app go — an ad platform's pixel / conversion action /
 * goal, or a BigQuery / Mixpanel destination (null stops sending). DELETE ?platform clears an ad target.
 */
export default createHandler({
  PUT: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: z.union([appTargetSchema, appWarehouseSchema]),
    permission: ['app', 'update'],
    async handle({ org, caller, query, body }) {
      const options = { plan: subscribedPlan(org.data), uid: caller.uid };
      if (isAdPlatform(body.platform))
        return { app: await setAppTarget(org.id, query.id, body as z.infer<typeof appTargetSchema>, options) };
      const warehouse = body as z.infer<typeof appWarehouseSchema>;
      return { app: await setAppWarehouse(org.id, query.id, warehouse.platform, warehouse.destinationId, options) };
    },
  }),
  DELETE: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema.extend({ platform: z.enum(AD_PLATFORMS) }),
    permission: ['app', 'update'],
    handle: async ({ org, query }) => ({ app: await clearAppTarget(org.id, query.id, query.platform) }),
  }),
});
