import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { conversionQuality } from '@/lib/server/services/matchQuality';

/**
 * GET the conversion's match quality: `{ platform, keys, day, week, advice, platformMeasure }`, the share of
 * events carrying each match key (last day, last week), advice, and the platform's own measure.
 */
export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['conversion', 'read'],
    handle: ({ org, query }) => conversionQuality(org.id, query.id),
  }),
});
