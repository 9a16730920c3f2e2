import { PLATFORM_LABELS, type Integration, type IntegrationKind, type Platform } from '@/lib/shared/integrations/platforms';
import { PlatformError } from '@/lib/server/connectors/errors';
import { connectorFor, keyAuthOf, oauthOf, type Credential } from '@/lib/server/connectors/registry';
import type { Connection, ConnectorId, Session } from '@/lib/server/connectors/types';
import { raiseAlert } from '@/lib/server/alerts';
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
 * A login declared dead (by a refresh, or by workWithSession): the object is marked "needs
 * reconnecting" with the one sentence, and the error to settle with says the same, whichever call
 * noticed it first. The process forgets the object's cached session, so nothing here uses it again.
 */
async function loginDied(orgId: string, kind: IntegrationKind, id: string, platform: Platform): Promise<PlatformError> {
  forgetSessionsOf(orgId, kind, id);
  const error = new PlatformError(platform, 'needs_reauth', deadLoginMessage(platform));
  await markNeedsReauth(orgId, kind, id, error.message);
  await raiseAlert({ orgId, kind: 'needs_reauth', subject: { type: kind, id }, message: error.message });
  return error;
}

// ——— sessions, cached per credential in the process ———

/**
 * An opened session is kept per credential until this long before its access token expires, so a job
 * starting then still has its token at its end: the longest is a Microsoft report chunk (up to 15
 * minutes of polling, then the download and the write). A token that dies sooner anyway (a platform may
 * end one early) is refreshed once before the login counts as dead (workWithSession).
 */
export const SESSION_MARGIN_MS = 20 * 60_000;
/**
 * The longest a session is kept, whatever the platform said: keys that never expire (Mixpanel, Stripe)
 * and tokens whose lifetime is not told (a service account's, 1 h by its own assertion) are opened again
 * this often, so a key changed at the platform is noticed within it.
 */
export const SESSION_MAX_AGE_MS = 45 * 60_000;

interface CachedSession {
  /** What the cache is for: the object's credential as of its last (re)connection (`connected_at`). */
  version: string;
  /** The object whose login it is (`{org}/source/{id}`), so its dead login forgets it. */
  object: string;
  /** One opening at a time (single-flight): every caller meanwhile awaits the same one. */
  opening: Promise<Session>;
  /** Until when it may be handed out; Infinity while it is being opened. */
  freshUntil: number;
}

const sessions = new Map<string, CachedSession>();
const objectKey = (orgId: string, kind: IntegrationKind, id: string) => `${orgId}/${kind}/${id}`;

/** Forgets the cached sessions of an object (its login died, or it was reconnected or deleted here). */
export function forgetSessionsOf(orgId: string, kind: IntegrationKind, id: string): void {
  const object = objectKey(orgId, kind, id);
  for (const [key, entry] of sessions) if (entry.object === object) sessions.delete(key);
}

/** Forgets every cached session (tests). */
export function forgetAllSessions(): void {
  sessions.clear();
}

/** Drops what expired, so a long-lived worker does not keep the sessions of objects long deleted. */
function pruneSessions(now: number) {
  for (const [key, entry] of sessions) if (entry.freshUntil <= now) sessions.delete(key);
}

/** A refresh of the credential at the platform, saving what it rotated; a dead login is marked once. */
async function refreshSession(
  orgId: string,
  kind: IntegrationKind,
  id: string,
  platform: Platform,
  credentialId: string,
): Promise<Session> {
  try {
    const credential = await readCredential(orgId, credentialId);
    const session = await connectorFor(platform).openSession(credential);
    if (session.rotated) await updateSealedCredential(orgId, credentialId, sealCredential(orgId, credentialId, session.rotated));
    return session;
  } catch (error) {
    if ((error instanceof PlatformError || error instanceof DomainError) && error.code === 'needs_reauth') {
      throw await loginDied(orgId, kind, id, platform);
    }
    throw error;
  }
}

/**
 * A live session of an object's login, saving what the platform rotated. A dead login marks the
 * object 'needs reauth' and throws the connector's PlatformError('needs_reauth') as it is, so a
 * worker can tell it from the other failures.
 *
 * Sessions are cached per credential in this process (docs/architecture/overview.md, the request path's step 4): the object
 * is read every time (one point read: its status and `connected_at`), the credential and the refresh
 * only when no fresh session of that same connection of the login is held. Two callers that find none
 * share one refresh.
 */
export async function openSessionOf(
  orgId: string,
  kind: IntegrationKind,
  id: string,
): Promise<{ session: Session; integration: Integration; cached: boolean; forget: () => void }> {
  const { integration, credentialId } = await loadIntegration(orgId, kind, id);
  const key = `${orgId}/${credentialId}`;
  if (integration.status === 'needs_reauth') {
    sessions.delete(key);
    throw new PlatformError(integration.platform, 'needs_reauth', needsReauth(integration.platform).message);
  }
  const now = Date.now();
  let entry = sessions.get(key);
  let cached = true;
  // Reconnected since (here or on another instance): `connected_at` moved, the cached login is the old one.
  if (!entry || entry.version !== integration.connectedAt || entry.freshUntil - SESSION_MARGIN_MS <= now) {
    pruneSessions(now);
    const opening = refreshSession(orgId, kind, id, integration.platform, credentialId);
    const created: CachedSession = { version: integration.connectedAt, object: objectKey(orgId, kind, id), opening, freshUntil: Infinity };
    entry = created;
    cached = false;
    sessions.set(key, created);
    opening.then(
      (session) => {
        const opened = Date.now();
        created.freshUntil = Math.min(session.expiresAt ?? Infinity, opened + SESSION_MAX_AGE_MS);
      },
      () => {
        if (sessions.get(key) === created) sessions.delete(key);
      },
    );
  }
  const opened = entry;
  const session = await opened.opening;
  // Forgets this session only: a refresh another caller started since is kept (it is the one to share).
  const forget = () => {
    if (sessions.get(key) === opened) sessions.delete(key);
  };
  // A rotated credential was saved by the refresh that got it: callers after it must not save it again.
  return { session: session.rotated ? { ...session, rotated: null } : session, integration, cached, forget };
}

const refusedLogin = (error: unknown) => error instanceof DomainError && error.code === 'needs_reauth';

/**
 * What a refusal of the login while it is used means: `dead_login` (the default) marks the object
 * "needs reconnecting"; `no_access` only throws it (reconciliation: a login that may not read reporting
 * still delivers).
 */
export type Refusal = 'dead_login' | 'no_access';

/**
 * Runs `work` with a live session of the object's login: the one place a login refused while it is used
 * (PlatformError or DomainError `needs_reauth`) becomes "needs reconnecting". A login refused with a session
 * from the cache may only have had its token expire (during a long job, or ended early by the platform):
 * the session is forgotten and `work` runs once more with a fresh refresh. A login refused with a fresh
 * session is dead: the object is marked and PlatformError('needs_reauth') thrown in the one sentence
 * (with `refusal: 'no_access'`, the refusal is thrown as it is and nothing is marked). `work` may run
 * twice: a refused call did nothing at the platform.
 */
export async function workWithSession<T>(
  orgId: string,
  kind: IntegrationKind,
  id: string,
  work: (session: Session, integration: Integration) => Promise<T>,
  { refusal = 'dead_login' }: { refusal?: Refusal } = {},
): Promise<T> {
  const { session, integration, cached, forget } = await openSessionOf(orgId, kind, id);
  let fresh = !cached;
  try {
    try {
      return await work(session, integration);
    } catch (error) {
      if (fresh || !refusedLogin(error)) throw error;
      // Jobs of the login refused at once share the one refresh the first of them starts.
      forget();
      const reopened = await openSessionOf(orgId, kind, id);
      fresh = true;
      return await work(reopened.session, reopened.integration);
    }
  } catch (error) {
    if (!fresh || !refusedLogin(error) || refusal === 'no_access') throw error;
    throw await loginDied(orgId, kind, id, integration.platform);
  }
}

/**
 * Runs `work` with a live session (workWithSession: a dead login marks the object 'needs reauth', and
 * the UI offers a one-click reconnect) and throws needs_reauth in the one sentence; any other refusal
 * of the platform is a platform_error (retryable when the platform may answer later).
 */
export async function withSession<T>(
  orgId: string,
  kind: IntegrationKind,
  id: string,
  work: (session: Session, integration: Integration) => Promise<T>,
): Promise<T> {
  try {
    return await workWithSession(orgId, kind, id, work);
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
