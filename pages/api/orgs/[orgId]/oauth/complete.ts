import { can } from '@/lib/shared/permissions';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { oauthCompleteSchema, type OAuthCompleted } from '@/lib/shared/schemas/oauth';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { forbidden } from '@/lib/server/errors';
import { completeOAuth, consumeOAuthReturn } from '@/lib/server/services/oauth';

/**
 * POST /api/orgs/{orgId}/oauth/complete {state, code, returnPath}: spends the state, trades the
 * code, then creates the object (or replaces the login of the one being reconnected).
 */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: oauthCompleteSchema,
    async handle({ org, caller, body }): Promise<OAuthCompleted> {
      const flow = await consumeOAuthReturn(org.id, caller.uid, body);
      // The role is checked again: it may have changed while the user was at the provider.
      if (!can(org.role, flow.kind, flow.objectId ? 'update' : 'create')) throw forbidden();
      return completeOAuth(org.id, caller.uid, flow, body.code);
    },
  }),
});
