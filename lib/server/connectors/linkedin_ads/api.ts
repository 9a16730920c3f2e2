import { linkedinConfig } from '@/lib/server/connectors/linkedin_ads/config';
import { linkedinAdsError } from '@/lib/server/connectors/linkedin_ads/errors';
import { bearer, requestJson } from '@/lib/server/connectors/http';

/** The LinkedIn Marketing API (versioned REST, Rest.li 2.0): one call with the headers every call carries, its refusals classified (errors.ts). */

/** An ad account's URN, as adAnalytics' `accounts` and the conversion rules' `account` name it. */
export const accountUrn = (accountId: string) => `urn:li:sponsoredAccount:${accountId}`;
/** A conversion rule's URN, as a conversion event names it. */
export const conversionUrn = (ruleId: string) => `urn:lla:llaPartnerConversion:${ruleId}`;
/** The id at the end of a URN (urn:li:sponsoredCampaign:123 → 123). */
export const idOf = (urn: string) => urn.slice(urn.lastIndexOf(':') + 1);

/**
 * A Rest.li 2.0 query string: `query` holds values already in Rest.li form (List(…), (start:(…))), whose URNs
 * are percent-encoded inside and whose parentheses, commas and colons stay as they are.
 */
export const restliQuery = (query: Record<string, string>) =>
  Object.entries(query)
    .map(([name, value]) => `${name}=${value}`)
    .join('&');

/** A URN inside a Rest.li value (List(urn%3Ali%3A…)). */
export const encodedUrn = (urn: string) => encodeURIComponent(urn);

/** One call of the Marketing API under /rest; throws linkedinAdsError unless 2xx. */
export async function linkedin(
  accessToken: string,
  path: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string>; onCall?: () => void } = {},
): Promise<Record<string, unknown>> {
  const config = linkedinConfig();
  init.onCall?.();
  const { status, body } = await requestJson('linkedin_ads', `${config.apiUrl}/rest/${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...bearer(accessToken, config.headers),
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  // LinkedIn's 429 carries no Retry-After: the throttle's own backoff applies.
  if (status < 200 || status >= 300) throw linkedinAdsError(status, body);
  return body;
}
