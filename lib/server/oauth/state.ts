import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import type { IntegrationKind, OAuthPlatform } from '@/lib/shared/integrations/platforms';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { DomainError } from '@/lib/server/errors';
import { derivedSecret } from '@/lib/server/secretBox';

/** How long a consent round trip may take. */
export const STATE_TTL_MS = 10 * 60 * 1000;

export interface OAuthFlow {
  orgId: string;
  uid: string;
  platform: OAuthPlatform;
  kind: IntegrationKind;
  /** The source or destination whose credentials are replaced (reauth); null creates a new one. */
  objectId: string | null;
  redirectUri: string;
}

const states = () => adminDb().collection('oauth_states');

function sign(nonce: string): string {
  return createHmac('sha256', derivedSecret('oauth-state')).update(nonce).digest('base64url');
}

export const invalidState = () =>
  new DomainError('invalid', 'This connection link has expired or was already used. Start connecting again.', { reason: 'invalid_state' });

/**
 * A signed, single-use, expiring `state`: a random nonce and its HMAC; what the flow is for stays on
 * the server (`oauth_states/{nonce}`), so the browser cannot change it.
 */
export async function createState(flow: OAuthFlow, now = Date.now()): Promise<string> {
  const nonce = randomBytes(24).toString('base64url');
  await states()
    .doc(nonce)
    .set({
      org_id: flow.orgId,
      uid: flow.uid,
      platform: flow.platform,
      kind: flow.kind,
      object_id: flow.objectId,
      redirect_uri: flow.redirectUri,
      created_at: FieldValue.serverTimestamp(),
      expires_at: Timestamp.fromMillis(now + STATE_TTL_MS),
    });
  return `${nonce}.${sign(nonce)}`;
}

/**
 * Checks and spends a state in one transaction: its signature, that it exists and was not used,
 * that it has not expired, and that it was started by this user for this organization. Any failure
 * gives the same answer, so a probe learns nothing.
 */
export async function consumeState(state: string, expected: { orgId: string; uid: string }): Promise<OAuthFlow> {
  const [nonce, signature] = state.split('.');
  if (!nonce || !signature) throw invalidState();
  const expectedSignature = Buffer.from(sign(nonce));
  const given = Buffer.from(signature);
  if (given.length !== expectedSignature.length || !timingSafeEqual(given, expectedSignature)) throw invalidState();

  const db = adminDb();
  const ref = states().doc(nonce);
  const flow = await db.runTransaction(async (transaction) => {
    const snapshot = await transaction.get(ref);
    const data = snapshot.data();
    if (!data) return null;
    // Spent on first sight, whatever happens next: a state never works twice.
    transaction.delete(ref);
    const expired = (data.expires_at as Timestamp).toMillis() < Date.now();
    if (expired || data.org_id !== expected.orgId || data.uid !== expected.uid) return null;
    return {
      orgId: data.org_id,
      uid: data.uid,
      platform: data.platform,
      kind: data.kind,
      objectId: data.object_id ?? null,
      redirectUri: data.redirect_uri,
    } satisfies OAuthFlow;
  });
  if (!flow) throw invalidState();
  return flow;
}
