import { forgetAlerts } from '@/lib/server/alerts';
import { z } from 'zod';
import { createConversionSchema, previewSourceSchema, testEventSchema, updateConversionSchema } from '@/lib/shared/schemas/conversions';
import { objectRouteSchema, orgRouteSchema } from '@/lib/shared/schemas/integrations';
import { documentIdSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { consumeRateLimits, TEST_EVENTS_PER_CONVERSION } from '@/lib/server/rateLimit';
import * as repo from '@/lib/server/repos/conversions';
import {
  assertConversionsIncluded,
  conversionDetail,
  createConversion,
  listConversions,
  retryParked,
  sendTestEvent,
  updateConversion,
} from '@/lib/server/services/conversions';
import { conversionQuality } from '@/lib/server/services/matchQuality';
import { previewWarehouseSource, readNow } from '@/lib/server/services/warehouseSources';

/** `/api/orgs/{orgId}/conversions[/preview|/{id}[/deliveries[/{deliveryId}/rows/{eventId}]|/test|/retry|/read|/quality]]`. */

const planOf = (org: { data: FirebaseFirestore.DocumentData }) => org.data.subscription?.plan ?? null;

export const conversionsRoutes = createHandler({
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
    handle: async ({ org, caller, body }) => ({ conversion: await createConversion(org.id, planOf(org), caller.uid, body) }),
  }),
});

export const conversionRoutes = createHandler({
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
    handle: async ({ org, query, body }) => ({ conversion: await updateConversion(org.id, planOf(org), query.id, body) }),
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['conversion', 'delete'],
    handle: async ({ org, query }) => {
      await repo.deleteConversion(org.id, query.id);
      await forgetAlerts(org.id, { type: 'conversion', id: query.id });
      return { success: true };
    },
  }),
});

const deliveriesQuerySchema = objectRouteSchema.extend({
  eventId: z.string().trim().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const deliveriesRoutes = createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: deliveriesQuerySchema,
    permission: ['conversion', 'read'],
    handle: async ({ org, query }) => {
      await repo.getConversion(org.id, query.id);
      const deliveries = await repo.listDeliveries(org.id, query.id, { eventId: query.eventId, limit: query.limit });
      // An event no delivery holds may have been left out by the conversion's event-name filter: say so.
      const filtered = query.eventId && deliveries.length === 0 ? await repo.findFiltered(org.id, query.id, query.eventId) : null;
      return { deliveries, ...(filtered ? { filtered } : {}) };
    },
  }),
});

/** One row of a delivery record opened: what was sent for it (hashed, as on the wire) and what the platform answered. */
const deliveryRowQuerySchema = objectRouteSchema.extend({
  deliveryId: documentIdSchema,
  eventId: z.string().trim().min(1).max(100),
});

export const deliveryRowRoutes = createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: deliveryRowQuerySchema,
    permission: ['conversion', 'read'],
    handle: async ({ org, query }) => {
      await repo.getConversion(org.id, query.id);
      return repo.deliveryRow(org.id, query.id, query.deliveryId, query.eventId);
    },
  }),
});

export const testEventRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: testEventSchema,
    permission: ['conversion', 'update'],
    handle: async ({ org, query, body }) => {
      // Counted before the call: a burst of clicks (or scripts) cannot reach the platform more often than this.
      await consumeRateLimits([{ rule: TEST_EVENTS_PER_CONVERSION, key: `${org.id}/${query.id}` }]);
      return sendTestEvent(org.id, query.id, body.testEventCode);
    },
  }),
});

export const retryRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['conversion', 'update'],
    handle: async ({ org, query }) => ({ replayed: await retryParked(org.id, query.id, 'failed') }),
  }),
});

/** The first rows a BigQuery or Mixpanel source would send, mapped and hashed (nothing is saved). */
export const previewRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    // sendsTo: the ad destination chosen, whose checks the rows then pass (or are refused with its reason).
    body: z.object({ source: previewSourceSchema, suggest: z.boolean().optional(), sendsTo: documentIdSchema.optional() }).strict(),
    permission: ['conversion', 'create'],
    handle: ({ org, body }) => {
      // The preview runs a billed query: only for a plan that can then create the conversion.
      assertConversionsIncluded(planOf(org));
      return previewWarehouseSource(org.id, body.source, { suggest: body.suggest, sendsTo: body.sendsTo });
    },
  }),
});

/** Read now: a BigQuery or Mixpanel conversion's next read is due at once. */
export const readRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['conversion', 'update'],
    handle: async ({ org, query }) => {
      await readNow(org.id, query.id);
      return { requested: true };
    },
  }),
});

/** Match quality: the share of events carrying each match key (last day, last week), advice, and the platform's own measure. */
export const qualityRoutes = createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['conversion', 'read'],
    handle: ({ org, query }) => conversionQuality(org.id, query.id),
  }),
});
