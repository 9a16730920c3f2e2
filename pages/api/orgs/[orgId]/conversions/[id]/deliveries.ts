import { z } from 'zod';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { isCalendarDate } from '@/lib/shared/schemas/submissions';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listDeliveries } from '@/lib/server/services/conversions';

/**
 * GET the conversion's delivery log: the latest platform calls, those holding ?eventId=, or those of ?day=
 * (YYYY-MM-DD, a day of the zone "Counted by the platform" shows its days in: the ad account's).
 */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema.extend({
      eventId: z.string().trim().min(1).max(100).optional(),
      limit: z.coerce.number().int().min(1).max(100).optional(),
      day: z.string().refine(isCalendarDate, 'A day of the calendar as YYYY-MM-DD').optional(),
    }),
    permission: ['conversion', 'read'],
    handle: ({ org, query }) => listDeliveries(org.id, query.id, { eventId: query.eventId, limit: query.limit, day: query.day }),
  }),
});
