import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError } from '@/lib/server/errors';
import { derivedSecret } from '@/lib/server/secretBox';
import { saveState, spendState, type OAuthFlow } from '@/lib/server/repos/oauthStates';

/** How long a consent round trip may take. */
export const STATE_TTL_MS = 10 * 60 * 1000;

export type { OAuthFlow };

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
  await saveState(nonce, flow, now + STATE_TTL_MS);
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

  const flow = await spendState(nonce, expected);
  if (!flow) throw invalidState();
  return flow;
}
