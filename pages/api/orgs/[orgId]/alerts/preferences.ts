import { emailPreferencesSchema } from '@/lib/shared/schemas/alerts';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { emailPreferences, saveEmailPreferences } from '@/lib/server/repos/alerts';

/** GET the caller's alert emails per kind in this organization; PUT { email: { kind: on } } changes them. */
export default createHandler({
  GET: route({
    access: 'orgMember',
    query: orgRouteSchema,
    // Each person's own settings: any member reads and changes only theirs.
    permission: ['organization', 'read'],
    handle: async ({ org, caller }) => ({ email: await emailPreferences(org.id, caller.uid) }),
  }),
  PUT: route({
    access: 'orgMember',
    query: orgRouteSchema,
    body: emailPreferencesSchema,
    permission: ['organization', 'read'],
    handle: async ({ org, caller, body }) => ({ email: await saveEmailPreferences(org.id, caller.uid, body.email) }),
  }),
});
