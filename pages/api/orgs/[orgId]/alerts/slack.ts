import { slackWebhookSchema } from '@/lib/shared/schemas/alerts';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { saveSlackSettings, slackSettings } from '@/lib/server/alerts/settings';

/** GET whether a Slack webhook is set (masked); PUT { webhookUrl } saves it (https only), null removes it. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    query: orgRouteSchema,
    // The webhook is the organization's setting: owners and admins only.
    permission: ['organization', 'update'],
    handle: ({ org }) => slackSettings(org.id),
  }),
  PUT: route({
    access: 'orgMember',
    query: orgRouteSchema,
    body: slackWebhookSchema,
    permission: ['organization', 'update'],
    handle: ({ org, caller, body }) => saveSlackSettings(org.id, caller.uid, body.webhookUrl),
  }),
});
