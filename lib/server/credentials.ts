import { FieldValue } from 'firebase-admin/firestore';
import { PLATFORM_LABELS, type Integration, type IntegrationKind, type Platform } from '@/lib/shared/integrations/platforms';
import { PlatformError } from '@/lib/server/connectors/errors';
import { connectorFor, keyAuthOf, oauthOf, type Credential } from '@/lib/server/connectors/registry';
import type { Connection, ConnectorId, Session } from '@/lib/server/connectors/types';
import { DomainError } from '@/lib/server/errors';
import {
  loadIntegration,
  markNeedsReauth,
  readSealedCredential,
  updateSealedCredential,
  type SealedCredential,
} from '@/lib/server/repos/integrations';
import { open, seal } from '@/lib/server/secretBox';

/**
 * Credentials between the connectors and Firestore: sealed on the way in, opened into a live
 * session on the way out (saving what a platform rotates), and a dead login marks its object
 * "needs reconnecting".
 */

/** Seals a credential with the document path as associated data: it opens nowhere else. */
export function sealCredential(orgId: string, credentialId: string, credential: Credential): SealedCredential {
  return {
    sealed: seal(JSON.stringify(credential), `${orgId}/${credentialId}`),
    type: credential.type,
    updated_at: FieldValue.serverTimestamp(),
  };
}

/** Opens a stored credential; a missing one can only be fixed by connecting again. */
export async function readCredential(orgId: string, credentialId: string): Promise<Credential> {
  const sealed = await readSealedCredential(orgId, credentialId);
  if (sealed === null) throw new DomainError('needs_reauth', 'The login behind this connection is missing. Reconnect it.');
  return JSON.parse(open(sealed, `${orgId}/${credentialId}`)) as Credential;
}

/** The one sentence for a dead login, wherever it is noticed (a refresh, a report, a write, a send). */
export const deadLoginMessage = (platform: Platform) =>
  `${PLATFORM_LABELS[platform]} has disconnected SignalBridge from this account (the login expired or access was removed). Reconnect to keep your data flowing.`;

const needsReauth = (platform: Platform) => new DomainError('needs_reauth', deadLoginMessage(platform));

/**
 * The one place a login is declared dead: the object is marked "needs reconnecting" with the one
 * sentence, and the error to settle with says the same, whichever call noticed it first.
 */
export async function loginDied(orgId: string, kind: IntegrationKind, id: string, platform: Platform): Promise<PlatformError> {
  const error = new PlatformError(platform, 'needs_reauth', deadLoginMessage(platform));
  await markNeedsReauth(orgId, kind, id, error.message);
  return error;
}

/**
 * A live session of an object's login, saving what the platform rotated. A dead login marks the
 * object 'needs reauth' and throws the connector's PlatformError('needs_reauth') as it is, so a
 * worker can tell it from the other failures.
 */
export async function openSessionOf(
  orgId: string,
  kind: IntegrationKind,
  id: string,
): Promise<{ session: Session; integration: Integration }> {
  const { integration, credentialId } = await loadIntegration(orgId, kind, id);
  if (integration.status === 'needs_reauth')
    throw new PlatformError(integration.platform, 'needs_reauth', needsReauth(integration.platform).message);
  try {
    const credential = await readCredential(orgId, credentialId);
    const session = await connectorFor(integration.platform).openSession(credential);
    if (session.rotated) await updateSealedCredential(orgId, credentialId, sealCredential(orgId, credentialId, session.rotated));
    return { session, integration };
  } catch (error) {
    if ((error instanceof PlatformError || error instanceof DomainError) && error.code === 'needs_reauth') {
      throw await loginDied(orgId, kind, id, integration.platform);
    }
    throw error;
  }
}

/**
 * Runs `work` with a live session. A credential the platform has killed marks the object
 * 'needs reauth' (the UI offers a one-click reconnect) and throws needs_reauth; any other refusal
 * of the platform is a platform_error (retryable when the platform may answer later).
 */
export async function withSession<T>(
  orgId: string,
  kind: IntegrationKind,
  id: string,
  work: (session: Session, integration: Integration) => Promise<T>,
): Promise<T> {
  try {
    const { session, integration } = await openSessionOf(orgId, kind, id);
    try {
      return await work(session, integration);
    } catch (error) {
      if (error instanceof PlatformError && error.code === 'needs_reauth') throw await loginDied(orgId, kind, id, integration.platform);
      throw error;
    }
  } catch (error) {
    if (error instanceof PlatformError && error.code === 'needs_reauth') throw needsReauth(error.platform as Platform);
    if (error instanceof PlatformError) {
      const code = error.code === 'retryable' || error.code === 'rate_limited' ? 'retryable' : 'invalid';
      throw new DomainError(code, error.message, { reason: 'platform_error' });
    }
    throw error;
  }
}

/** Checks pasted credentials with the platform; a refusal is reported on the form's key field. */
export async function connectWithKey(id: ConnectorId, input: Record<string, string>): Promise<Connection<Credential>> {
  const key = keyAuthOf(id);
  try {
    return await key.connect(input);
  } catch (error) {
    if (error instanceof PlatformError) {
      throw new DomainError('invalid', error.message, { reason: 'invalid_credentials', fieldErrors: { [key.field]: [error.message] } });
    }
    throw error;
  }
}

/** Finishes a consent: trades the code for a lasting credential and names the login. */
export async function exchangeCode(platform: ConnectorId, code: string, redirectUri: string): Promise<Connection<Credential>> {
  try {
    return await oauthOf(platform).exchangeCode(code, redirectUri);
  } catch (error) {
    if (error instanceof PlatformError) throw new DomainError('invalid', error.message, { reason: 'oauth_failed' });
    throw error;
  }
}
