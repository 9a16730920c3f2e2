import { createHash } from 'node:crypto';
import { LINKEDIN_ADS_VERSION } from '@/lib/server/connectors/linkedin_ads/version';
import type { Answer, ContractCase, SentRequest } from '@/tests/contract/case';

/**
 * LinkedIn's documented facts for the contract suite (tests/contract/connectors.test.ts), against this
 * folder's fake: the Conversions API (conversionEvents) and Ads Reporting (adAnalytics) of the Marketing
 * API version we pin, sent as the LinkedIn-Version header.
 */

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A refusal as the Marketing API answers it (https://learn.microsoft.com/linkedin/shared/api-guide/concepts/error-handling). */
const refusal = (status: number, code: string | null, message: string, serviceErrorCode?: number): Answer => ({
  status,
  body: { status, ...(serviceErrorCode === undefined ? {} : { serviceErrorCode }), ...(code ? { code } : {}), message },
});

/** The idValue of the user id of this idType in one conversion event as sent. */
const userId = (idType: string) => (event: unknown) =>
  ((event as { user?: { userIds?: Array<{ idType: string; idValue: string }> } }).user?.userIds ?? []).find((id) => id.idType === idType)
    ?.idValue;

const VERSION = { header: 'linkedin-version', value: LINKEDIN_ADS_VERSION.version };

export const linkedinAdsContract: ContractCase = {
  id: 'linkedin_ads',
  login: { consent: true },
  apis: [
    // Every versioned call: https://api.linkedin.com/rest/… with "LinkedIn-Version: YYYYMM"
    // (https://learn.microsoft.com/linkedin/marketing/versioning).
    { api: 'Marketing API', requests: /^\/linkedin\/rest\//, version: VERSION },
    // OAuth 2.0 is not versioned (https://learn.microsoft.com/linkedin/shared/authentication/authorization-code-flow).
    { api: 'OAuth 2.0', requests: /^\/linkedin\/oauth\//, version: null },
  ],
  deliver: {
    account: { id: '510001', name: 'Acme Shoes (LinkedIn)', currency: 'USD' },
    target: { id: '17001', name: 'Purchase' },
    // "You can send up to 5,000 events in a single batch request" (Conversions API, Batch, https://learn.microsoft.com/linkedin/marketing/integrations/ads-reporting/conversions-api).
    maxEvents: 5000,
    event: (n) => ({
      id: `contract-linkedin-${n}`,
      name: 'Purchase',
      time: Math.floor(Date.now() / 1000) - 3600,
      value: 10 + n,
      currency: 'USD',
      clickIds: { li_fat_id: `contract-li-fat-${n}` },
      context: { actionSource: 'system_generated' },
    }),
    eventsOf: (request: SentRequest) =>
      request.path.endsWith('/rest/conversionEvents') ? ((request.body as { elements?: unknown[] }).elements ?? []) : [],
    // userIds: SHA256_EMAIL "the SHA256 hash of the member's email" (lowercased and trimmed before hashing);
    // LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID the li_fat_id of the click as it came (Conversions API, user.userIds).
    identifiers: [
      {
        name: 'SHA256_EMAIL',
        read: userId('SHA256_EMAIL'),
        expected: (person) => (person.email ? sha256(person.email.trim().toLowerCase()) : undefined),
      },
    ],
  },
  report: {
    account: { id: '510001', name: 'Acme Shoes (LinkedIn)', currency: 'USD' },
    level: 'ad',
    window: () => ({ from: daysAgo(10), to: daysAgo(4) }),
  },
  refusals: [
    {
      what: '401 REVOKED_ACCESS_TOKEN',
      during: 'deliver',
      answer: refusal(401, 'REVOKED_ACCESS_TOKEN', 'The token used in the request has been revoked by the user', 65601),
      kind: 'needs_reauth',
    },
    {
      what: '429 TOO_MANY_REQUESTS',
      during: 'deliver',
      answer: refusal(
        429,
        'TOO_MANY_REQUESTS',
        'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
        101,
      ),
      kind: 'rate_limited',
    },
    {
      what: '426 NONEXISTENT_VERSION (a retired LinkedIn-Version)',
      during: 'deliver',
      answer: refusal(426, 'NONEXISTENT_VERSION', 'Requested version 202511 is not active'),
      kind: 'invalid',
    },
    {
      what: '403 ACCESS_DENIED',
      during: 'deliver',
      answer: refusal(403, 'ACCESS_DENIED', 'Not enough permissions to access: conversionEvents.BATCH_CREATE', 100),
      kind: 'forbidden',
    },
    { what: '500 Internal Server Error', during: 'deliver', answer: refusal(500, null, 'Internal Server Error'), kind: 'retryable' },
    {
      what: '400 ILLEGAL_ARGUMENT',
      during: 'deliver',
      answer: refusal(400, 'ILLEGAL_ARGUMENT', 'Invalid request body', 100),
      kind: 'invalid',
    },
    {
      what: '401 INVALID_ACCESS_TOKEN',
      during: 'report',
      answer: refusal(401, 'INVALID_ACCESS_TOKEN', 'Invalid access token', 65600),
      kind: 'needs_reauth',
    },
    {
      what: '400 VERSION_MISSING',
      during: 'report',
      answer: refusal(400, 'VERSION_MISSING', 'A version must be present. Please specify a version by adding the LinkedIn-Version header.'),
      kind: 'invalid',
    },
  ],
};

/** A day `days` before today (UTC), YYYY-MM-DD. */
function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}
