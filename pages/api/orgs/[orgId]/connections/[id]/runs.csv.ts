import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { runsCsv } from '@/lib/server/services/runs';

/** GET the run history as CSV (newest first, up to 1,000 runs), as a file to save. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['connection', 'read'],
    handle: async ({ org, query, res }) => {
      const csv = await runsCsv(org.id, query.id);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="runs-${query.id}.csv"`);
      res.setHeader('Cache-Control', 'private, no-store');
      res.status(200).send(csv);
      return undefined;
    },
  }),
});
