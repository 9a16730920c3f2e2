import { PLATFORM_LABELS, returnPathOf } from '@/lib/shared/integrations/platforms';
import type { OAuthCompleted, OAuthStartInput } from '@/lib/shared/schemas/oauth';
import { appUrl } from '@/lib/server/appUrl';
import { oauthOf } from '@/lib/server/connectors/registry';
import { exchangeCode } from '@/lib/server/credentials';
import { DomainError } from '@/lib/server/errors';
import { consumeState, createState, invalidState, type OAuthFlow } from '@/lib/server/oauth/state';
import { getIntegration } from '@/lib/server/repos/integrations';
import { resumeConnections } from '@/lib/server/services/connections';
import { releaseHeld } from '@/lib/server/services/conversions';
import { createIntegration, reconnectIntegration } from '@/lib/server/services/integrations';

/**
 * The OAuth round trip of a source or destination: start (the consent URL with a signed state), the
 * provider's return (the state spent), complete (the code traded, the object created or reconnected).
 * The routes check the caller's role; these take a caller already allowed.
 */

/** The provider's consent URL, with a signed, single-use, expiring state; a reconnect must name an object of that platform. */
export async function startOAuth(orgId: string, uid: string, input: OAuthStartInput) {
  const { platform, kind, objectId } = input;
  if (objectId) {
    const existing = await getIntegration(orgId, kind, objectId);
    if (existing.platform !== platform)
      throw new DomainError('invalid', `This ${kind} is not a ${PLATFORM_LABELS[platform]} account.`, { reason: 'invalid_request' });
  }
  const redirectUri = appUrl(returnPathOf(kind, platform, Boolean(objectId)));
  const state = await createState({ orgId, uid, platform, kind, objectId: objectId ?? null, redirectUri });
  return { url: oauthOf(platform).authorizeUrl(state, redirectUri) };
}

/**
 * The provider came back (with a code or without): spends the state, which only the user who started the
 * flow, in its organization, can (consumeState checks both), and only on the page it was sent back to.
 */
export async function consumeOAuthReturn(orgId: string, uid: string, from: { state: string; returnPath: string }): Promise<OAuthFlow> {
  const flow = await consumeState(from.state, { orgId, uid });
  if (appUrl(from.returnPath) !== flow.redirectUri) throw invalidState();
  return flow;
}

/** Trades the code, then creates the object, or replaces the login of the one being reconnected. */
export async function completeOAuth(orgId: string, uid: string, flow: OAuthFlow, code: string): Promise<OAuthCompleted> {
  const connection = await exchangeCode(flow.platform, code, flow.redirectUri);
  if (flow.objectId) {
    const mended = await reconnectIntegration(orgId, flow.kind, flow.objectId, connection, uid);
    // Conversions held while the login was dead go out again; paused connections run again — of every
    // object on the login (reconnecting a source mends the destination on its login too).
    for (const object of mended) {
      if (object.kind === 'destination') await releaseHeld(orgId, object.id);
      await resumeConnections(orgId, object.kind, object.id);
    }
    return { kind: flow.kind, id: flow.objectId, platform: flow.platform, reauthenticated: true };
  }
  const created = await createIntegration(orgId, { kind: flow.kind, platform: flow.platform, connection, uid });
  return { kind: flow.kind, id: created.id, platform: flow.platform, reauthenticated: false };
}
