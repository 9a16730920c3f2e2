import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { microsoftConfig } from '@/lib/server/connectors/microsoft_ads/config';
import { bearer, requestJson } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import { log } from '@/lib/server/log';

/** Microsoft Advertising REST v13: one call with the headers every call carries, and its refusals classified. */

interface AdApiError {
  Code?: number;
  ErrorCode?: string;
  Message?: string;
}

/**
 * A refused call as a PlatformError. The errors sit in `Errors` (AdApiFaultDetail) or in
 * `OperationErrors` / `BatchErrors` (ApiFaultDetail); their numeric codes say what kind of refusal it is.
 */
export function adsError(status: number, body: Record<string, unknown>): PlatformError {
  const errors = [body.Errors, body.OperationErrors, body.BatchErrors].flatMap((list) =>
    Array.isArray(list) ? (list as AdApiError[]) : [],
  );
  const codes = new Set(errors.map((error) => error.Code));
  // 105 InvalidCredentials, 109 AuthenticationTokenExpired: only signing in again helps. (Microsoft also
  // answers 105 to a wrong developer token, which is ours: it cannot be told apart here.)
  if (codes.has(105) || codes.has(109) || status === 401) {
    return new PlatformError('microsoft_ads', 'needs_reauth', 'Microsoft Advertising no longer accepts this login.');
  }
  if (codes.has(117) || status === 429) {
    return new PlatformError(
      'microsoft_ads',
      'rate_limited',
      'Microsoft Advertising is limiting how often we call it. Try again in a minute.',
    );
  }
  log.warn(
    { component: 'platforms', platform: 'microsoft_ads', status, codes: errors.map((error) => error.ErrorCode) },
    'Microsoft Advertising answered an error',
  );
  // 106 UserIsNotAuthorized, 1102 CampaignServiceInvalidAccountId: this login cannot reach the account.
  if (codes.has(106) || codes.has(1102) || status === 403) {
    return new PlatformError('microsoft_ads', 'forbidden', 'This Microsoft Advertising login cannot reach the account any more.');
  }
  // 0 InternalError and 5xx may pass on retry.
  if (status >= 500 || codes.has(0)) {
    return new PlatformError('microsoft_ads', 'retryable', 'Microsoft Advertising could not answer. Try again in a minute.');
  }
  const said = errors
    .map((error) => error.Message)
    .filter(Boolean)
    .join(' ');
  return new PlatformError('microsoft_ads', 'invalid', `Microsoft Advertising refused the request${said ? `: ${said}` : '.'}`);
}

/** POSTs a JSON payload with the bearer and developer tokens (and any account headers); throws adsError unless 200. */
export async function msads(url: string, accessToken: string, payload: unknown, headers: Record<string, string> = {}) {
  const { status, body } = await requestJson('microsoft_ads', url, {
    method: 'POST',
    headers: { ...bearer(accessToken), DeveloperToken: microsoftConfig().developerToken, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });
  if (status !== 200) throw adsError(status, body);
  return body;
}

/** The headers that name an account: its id, and the customer that owns it (kept as the account's managerId). */
export const accountHeaders = (account: AdAccount): Record<string, string> => ({
  CustomerAccountId: account.id,
  ...(account.managerId ? { CustomerId: account.managerId } : {}),
});
