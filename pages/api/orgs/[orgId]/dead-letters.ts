import { createHandler, route } from '@/lib/server/http/createHandler';
import { countDeadLetters } from '@/lib/server/repos/deadLetters';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';

/**
 * GET: what this organization's queues set aside after 20 attempts (messages carry an `org` attribute):
 * `{ conversions: { messages, events }, sync: { messages, events } }`. Every member may read it.
 */
export default createHandler({
  GET: route({
    access: 'orgMember',
    permission: ['organization', 'read'],
    query: orgRouteSchema,
    preload: ({ orgId }) => countDeadLetters(orgId),
    handle: ({ preloaded }) => ({ deadLetters: preloaded }),
  }),
});
