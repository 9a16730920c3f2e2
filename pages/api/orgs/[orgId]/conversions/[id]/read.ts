import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { readNow } from '@/lib/server/services/warehouseSources';

/** POST makes a BigQuery or Mixpanel conversion's next read due now (Read now). */
export default createHandler({
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
