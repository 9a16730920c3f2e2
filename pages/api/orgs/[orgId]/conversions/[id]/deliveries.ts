import { z } from 'zod';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listDeliveries } from '@/lib/server/services/conversions';

/** GET the conversion's delivery log: the latest platform calls, or those holding ?eventId=. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema.extend({
      eventId: z.string().trim().min(1).max(100).optional(),
      limit: z.coerce.number().int().min(1).max(100).optional(),
    }),
    permission: ['conversion', 'read'],
    handle: ({ org, query }) => listDeliveries(org.id, query.id, { eventId: query.eventId, limit: query.limit }),
  }),
});
