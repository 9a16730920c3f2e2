import { updateConversionSchema } from '@/lib/shared/schemas/conversions';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { subscribedPlan } from '@/lib/shared/billing/gate';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { conversionDetail, deleteConversion, updateConversion } from '@/lib/server/services/conversions';

/** GET one conversion (status, hourly counts, parked events); PATCH edits, pauses or resumes it; DELETE removes it. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['conversion', 'read'],
    handle: ({ org, query }) => conversionDetail(org.id, query.id),
  }),
  PATCH: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: updateConversionSchema,
    permission: ['conversion', 'update'],
    handle: async ({ org, query, body }) => ({
      conversion: await updateConversion(org.id, subscribedPlan(org.data), query.id, body),
    }),
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['conversion', 'delete'],
    handle: async ({ org, query }) => {
      await deleteConversion(org.id, query.id);
      return { success: true };
    },
  }),
});
