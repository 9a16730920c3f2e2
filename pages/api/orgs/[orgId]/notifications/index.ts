import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listNotifications } from '@/lib/server/repos/alerts';

/** GET the organization's latest alert notices (50), each read or not by the caller, and the unread count. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    query: orgRouteSchema,
    // Every member sees what stopped; only who gets emails differs.
    permission: ['organization', 'read'],
    handle: ({ org, caller }) => listNotifications(org.id, caller.uid),
  }),
});
