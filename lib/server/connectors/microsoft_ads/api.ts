import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { microsoftConfig } from '@/lib/server/connectors/microsoft_ads/config';
import { bearer, requestJson } from '@/lib/server/connectors/http';
import { microsoftAdsError } from '@/lib/server/connectors/microsoft_ads/errors';

/** Microsoft Advertising REST v13: one call with the headers every call carries, its refusals classified (errors.ts). */

/** POSTs a JSON payload with the bearer and developer tokens (and any account headers); throws microsoftAdsError unless 200. */
export async function msads(url: string, accessToken: string, payload: unknown, headers: Record<string, string> = {}) {
  const { status, body } = await requestJson('microsoft_ads', url, {
    method: 'POST',
    headers: { ...bearer(accessToken), DeveloperToken: microsoftConfig().developerToken, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });
  if (status !== 200) throw microsoftAdsError(status, body);
  return body;
}

/** The headers that name an account: its id, and the customer that owns it (kept as the account's managerId). */
export const accountHeaders = (account: AdAccount): Record<string, string> => ({
  CustomerAccountId: account.id,
  ...(account.managerId ? { CustomerId: account.managerId } : {}),
});
