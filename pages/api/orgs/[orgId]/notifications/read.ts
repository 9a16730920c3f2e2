import { markReadSchema } from '@/lib/shared/schemas/alerts';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { markNotificationsRead } from '@/lib/server/repos/alerts';

/** POST { ids } or { all: true } marks notices read for the caller alone. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    query: orgRouteSchema,
    body: markReadSchema,
    permission: ['organization', 'read'],
    async handle({ org, caller, body }) {
      await markNotificationsRead(org.id, caller.uid, 'all' in body ? 'all' : body.ids);
      return { success: true };
    },
  }),
});
