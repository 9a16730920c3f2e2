import { PLATFORMS_OF_KIND, PLATFORM_LABELS, returnPathOf } from '@/lib/shared/integrations/platforms';
import { can } from '@/lib/shared/permissions';
import { oauthCompleteSchema, oauthStartSchema, orgRouteSchema } from '@/lib/shared/schemas/integrations';
import { oauthCancelSchema, type OAuthCancelled } from '@/lib/shared/schemas/oauthReturn';
import { appUrl } from '@/lib/server/appUrl';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { oauthOf } from '@/lib/server/connectors/registry';
import { exchangeCode } from '@/lib/server/credentials';
import { DomainError, forbidden } from '@/lib/server/errors';
import { consumeState, createState, invalidState } from '@/lib/server/oauth/state';
import { getIntegration } from '@/lib/server/repos/integrations';
import { resumeConnections } from '@/lib/server/services/connections';
import { releaseHeld } from '@/lib/server/services/conversions';
import { createIntegration, reconnectIntegration } from '@/lib/server/services/integrations';

/**
 * POST /api/orgs/{orgId}/oauth/start {platform, kind, objectId?} → {url}: the provider's consent
 * screen with a signed, single-use, expiring state. Reauth (objectId) needs update rights on the
 * object; a new one needs create rights.
 */
export const startRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: oauthStartSchema,
    async handle({ org, caller, body }) {
      const { platform, kind, objectId } = body;
      if (!PLATFORMS_OF_KIND[kind].includes(platform)) {
        throw new DomainError('invalid', `${PLATFORM_LABELS[platform]} cannot be a ${kind}.`, {
          reason: 'invalid_request',
          fieldErrors: { platform: ['Not available here'] },
        });
      }
      if (!can(org.role, kind, objectId ? 'update' : 'create')) throw forbidden();
      if (objectId) {
        const existing = await getIntegration(org.id, kind, objectId);
        if (existing.platform !== platform)
          throw new DomainError('invalid', `This ${kind} is not a ${PLATFORM_LABELS[platform]} account.`, { reason: 'invalid_request' });
      }
      const redirectUri = appUrl(returnPathOf(kind, platform, Boolean(objectId)));
      const state = await createState({ orgId: org.id, uid: caller.uid, platform, kind, objectId: objectId ?? null, redirectUri });
      return { url: oauthOf(platform).authorizeUrl(state, redirectUri) };
    },
  }),
});

/**
 * POST /api/orgs/{orgId}/oauth/complete {state, code, returnPath}: spends the state, trades the
 * code, then creates the object (or replaces the login of the one being reconnected).
 */
export const completeRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: oauthCompleteSchema,
    async handle({ org, caller, body }) {
      const flow = await consumeState(body.state, { orgId: org.id, uid: caller.uid });
      if (appUrl(body.returnPath) !== flow.redirectUri) throw invalidState();
      // The role is checked again: it may have changed while the user was at the provider.
      if (!can(org.role, flow.kind, flow.objectId ? 'update' : 'create')) throw forbidden();
      const connection = await exchangeCode(flow.platform, body.code, flow.redirectUri);
      if (flow.objectId) {
        await reconnectIntegration(org.id, flow.kind, flow.objectId, connection, caller.uid);
        // Conversions held while the login was dead go out again; paused connections run again.
        if (flow.kind === 'destination') await releaseHeld(org.id, flow.objectId);
        await resumeConnections(org.id, flow.kind, flow.objectId);
        return { kind: flow.kind, id: flow.objectId, platform: flow.platform, reauthenticated: true };
      }
      const created = await createIntegration(org.id, { kind: flow.kind, platform: flow.platform, connection, uid: caller.uid });
      return { kind: flow.kind, id: created.id, platform: flow.platform, reauthenticated: false };
    },
  }),
});

/**
 * POST /api/orgs/{orgId}/oauth/cancel {state, returnPath, error?}: the provider came back without a code
 * (the user pressed Cancel). The state is spent, so Allow pressed later on the same consent page connects
 * nothing. No subscription needed: spending one's own state is always allowed.
 */
export const cancelRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    query: orgRouteSchema,
    body: oauthCancelSchema,
    async handle({ org, caller, body }): Promise<OAuthCancelled> {
      // Only the user who started the flow, in its organization, learns what it was (consumeState checks both).
      const flow = await consumeState(body.state, { orgId: org.id, uid: caller.uid });
      if (appUrl(body.returnPath) !== flow.redirectUri) throw invalidState();
      return { cancelled: true, platform: flow.platform, kind: flow.kind, reauthenticating: flow.objectId !== null };
    },
  }),
});
