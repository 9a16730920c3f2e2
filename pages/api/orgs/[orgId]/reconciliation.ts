import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { reconciliationRows } from '@/lib/server/repos/reconciliation';

/**
 * GET every ad conversion of the organization with the share of what it sent that its platform received over
 * the last 7 final days, worst first (not read yet last): `{ conversions: [{ id, name, platform, summary }] }`.
 */
export default createHandler({
  GET: route({
    access: 'orgMember',
    permission: ['conversion', 'read'],
    query: orgRouteSchema,
    preload: ({ orgId }) => reconciliationRows(orgId),
    handle: ({ preloaded }) => ({
      conversions: [...preloaded].sort((a, b) => (a.summary.week.share ?? 2) - (b.summary.week.share ?? 2) || a.name.localeCompare(b.name)),
    }),
  }),
});
