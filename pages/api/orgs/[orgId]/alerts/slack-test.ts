import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { sendSlackTest } from '@/lib/server/alerts/settings';

/** POST sends a test message to the organization's Slack webhook (10 an hour). */
export default createHandler({
  POST: route({
    access: 'orgMember',
    query: orgRouteSchema,
    permission: ['organization', 'update'],
    handle: ({ org }) => sendSlackTest(org.id),
  }),
});
