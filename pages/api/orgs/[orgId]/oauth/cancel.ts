import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { oauthCancelSchema, type OAuthCancelled } from '@/lib/shared/schemas/oauth';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { consumeOAuthReturn } from '@/lib/server/services/oauth';

/**
 * POST /api/orgs/{orgId}/oauth/cancel {state, returnPath, error?}: the provider came back without a code
 * (the user pressed Cancel). The state is spent, so Allow pressed later on the same consent page connects
 * nothing. No subscription needed: spending one's own state is always allowed.
 */
export default createHandler({
  POST: route({
    access: 'orgMember',
    query: orgRouteSchema,
    body: oauthCancelSchema,
    async handle({ org, caller, body }): Promise<OAuthCancelled> {
      // Only the user who started the flow, in its organization, learns what it was.
      const flow = await consumeOAuthReturn(org.id, caller.uid, body);
      return { cancelled: true, platform: flow.platform, kind: flow.kind, reauthenticating: flow.objectId !== null };
    },
  }),
});
