import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { retryParked } from '@/lib/server/services/conversions';

/** POST sends the conversion's failed events again. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['conversion', 'update'],
    handle: async ({ org, query }) => ({ replayed: await retryParked(org.id, query.id, 'failed') }),
  }),
});
