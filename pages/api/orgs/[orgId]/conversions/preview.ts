import { z } from 'zod';
import { previewSourceSchema } from '@/lib/shared/schemas/conversions';
import { documentIdSchema, orgRouteSchema } from '@/lib/shared/schemas/ids';
import { subscribedPlan } from '@/lib/shared/billing/gate';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { assertConversionsIncluded } from '@/lib/server/services/conversions';
import { previewWarehouseSource } from '@/lib/server/services/warehouseSources';

/**
 * POST { source } answers the first 20 rows of a BigQuery or Mixpanel source, mapped and hashed as they
 * will be sent (nothing is saved).
 */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    // sendsTo: the ad destination chosen, whose checks the rows then pass (or are refused with its reason).
    body: z.object({ source: previewSourceSchema, suggest: z.boolean().optional(), sendsTo: documentIdSchema.optional() }).strict(),
    permission: ['conversion', 'create'],
    handle: ({ org, body }) => {
      // The preview runs a billed query: only for a plan that can then create the conversion.
      assertConversionsIncluded(subscribedPlan(org.data));
      return previewWarehouseSource(org.id, body.source, { suggest: body.suggest, sendsTo: body.sendsTo });
    },
  }),
});
