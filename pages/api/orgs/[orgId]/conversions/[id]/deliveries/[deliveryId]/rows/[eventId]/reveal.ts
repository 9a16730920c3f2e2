import { z } from 'zod';
import { canRevealPersonalData } from '@/lib/shared/permissions';
import { documentIdSchema, objectRouteSchema } from '@/lib/shared/schemas/ids';
import { forbidden } from '@/lib/server/errors';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { revealDeliveryRow } from '@/lib/server/services/conversions';

/**
 * POST (owners and admins): one row of a delivery record with the visitor's IP address and browser in clear.
 * A POST, not a GET: each reveal is noted (who, which row and fields, when) before the answer.
 */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema.extend({ deliveryId: documentIdSchema, eventId: z.string().trim().min(1).max(100) }),
    permission: ['conversion', 'read'],
    handle: ({ org, caller, query }) => {
      if (!canRevealPersonalData(org.role)) throw forbidden();
      const by = { uid: caller.uid, email: caller.email ?? null, role: org.role };
      return revealDeliveryRow(org.id, query.id, query.deliveryId, query.eventId, by);
    },
  }),
});
