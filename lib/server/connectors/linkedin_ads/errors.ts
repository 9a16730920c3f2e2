import { classify, type ErrorTable, type PlatformError, type Refusal } from '@/lib/server/connectors/errors';

/**
 * LinkedIn's refusals, one table for sign-in (OAuth 2.0 `error`) and the Marketing API. The API answers
 * `{ status, serviceErrorCode, code, message }` (LinkedIn API guide, "Error Handling"); the `code` names the
 * kind (NONEXISTENT_VERSION, VERSION_MISSING, REVOKED_ACCESS_TOKEN…), docs/PLATFORMS.md, "LinkedIn".
 */

interface LinkedInRefusal extends Refusal {
  /** LinkedIn's own message. */
  said: string;
}

function linkedinRefusal(status: number, body: Record<string, unknown>): LinkedInRefusal {
  const codes: Array<string | number> = [];
  if (typeof body.code === 'string') codes.push(body.code);
  if (typeof body.serviceErrorCode === 'number') codes.push(body.serviceErrorCode);
  if (typeof body.error === 'string') codes.push(body.error);
  const said = typeof body.message === 'string' ? body.message : typeof body.error_description === 'string' ? body.error_description : '';
  return { status, codes, said };
}

/**
 * 401 (an expired or revoked token, `invalid_grant` from sign-in: the refresh token is dead too) needs a new
 * consent. 429 is the per-application or per-member daily limit. 426 NONEXISTENT_VERSION ("Requested version
 * … is not active") and 400 VERSION_MISSING are ours: the pinned version is gone, no reconnect helps (version.ts
 * is to move). 403 ACCESS_DENIED: the member lost the role on the ad account. 5xx pass later.
 */
export const LINKEDIN_ADS_ERRORS: ErrorTable<LinkedInRefusal> = [
  {
    status: [401],
    codes: ['invalid_grant', 'REVOKED_ACCESS_TOKEN', 'EXPIRED_ACCESS_TOKEN'],
    is: 'needs_reauth',
    says: 'LinkedIn stopped accepting this login — reconnect.',
  },
  { status: [429], is: 'rate_limited', says: 'LinkedIn is limiting how often we call it: it is tried again shortly.' },
  {
    status: [426],
    codes: ['NONEXISTENT_VERSION', 'VERSION_MISSING'],
    is: 'invalid',
    says: 'LinkedIn no longer serves the API version SignalBridge calls: SignalBridge must be updated (reconnecting does not help).',
  },
  { status: [403], codes: ['ACCESS_DENIED'], is: 'forbidden', says: 'This LinkedIn login cannot reach the ad account any more.' },
  { status: ['5xx'], is: 'retryable', says: 'LinkedIn could not answer. Try again in a minute.' },
  { is: 'invalid', says: ({ said }) => `LinkedIn refused the request${said ? `: ${said}` : '.'}` },
];

/** A refused LinkedIn call, classified by the table (a throttled one may say when to come back). */
export const linkedinAdsError = (status: number, body: Record<string, unknown>, retryAt?: Date): PlatformError =>
  classify('linkedin_ads', LINKEDIN_ADS_ERRORS, linkedinRefusal(status, body), retryAt);
