import { createConversionSchema } from '@/lib/shared/schemas/conversions';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { subscribedPlan } from '@/lib/shared/billing/gate';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { createConversion, listConversions } from '@/lib/server/services/conversions';

/** GET lists the organization's conversions (with the last 24 hours); POST creates one. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    permission: ['conversion', 'read'],
    handle: async ({ org }) => ({ conversions: await listConversions(org.id) }),
  }),
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: createConversionSchema,
    permission: ['conversion', 'create'],
    handle: async ({ org, caller, body }) => ({
      conversion: await createConversion(org.id, subscribedPlan(org.data), caller.uid, body),
    }),
  }),
});
