import { z } from 'zod';
import { documentIdSchema, objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { deliveryRow } from '@/lib/server/services/conversions';

/** GET one row of a delivery record: its outcome, the payload sent for it (hashed, as on the wire) and the platform's answer. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema.extend({ deliveryId: documentIdSchema, eventId: z.string().trim().min(1).max(100) }),
    permission: ['conversion', 'read'],
    handle: ({ org, query }) => deliveryRow(org.id, query.id, query.deliveryId, query.eventId),
  }),
});
