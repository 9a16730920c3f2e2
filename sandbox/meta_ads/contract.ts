import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { META_GRAPH_VERSION } from '@/lib/server/connectors/meta_ads/version';
import type { ContractCase, Person, SentRequest } from '@/tests/contract/case';

/**
 * Meta's documented facts for the contract suite (tests/contract/connectors.test.ts), against this
 * folder's fake: the Conversions API and the Insights API of the Graph API version we pin.
 */

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const hashed = (value: string | undefined, normalise: (value: string) => string) => (value ? sha256(normalise(value)) : undefined);

/** E.164 as libphonenumber reads it (a number without its country in the person's own country). */
const e164 = (person: Person) =>
  person.phone ? parsePhoneNumberFromString(person.phone.replace(/^\s*00/, '+'), person.countryCode as CountryCode)?.number : undefined;

/** "Customer information parameters": names lowercase, without punctuation (spaces inside kept, as Meta's SDK keeps them). */
const metaName = (value: string) =>
  value
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();

const userData = (event: unknown) => ((event as { user_data?: Record<string, unknown> }).user_data ?? {}) as Record<string, unknown>;
const first = (value: unknown) => (Array.isArray(value) ? (value[0] as unknown) : value);

export const metaContract: ContractCase = {
  id: 'meta_ads',
  login: { consent: true },
  // Every call goes to the Graph API under its version: https://graph.facebook.com/{version}/…
  // (https://developers.facebook.com/docs/graph-api/guides/versioning).
  apis: [{ api: 'Graph API', requests: /^\/meta\/graph\//, version: { path: `/${META_GRAPH_VERSION.version}/` } }],
  deliver: {
    account: { id: '101', name: 'Acme Shoes (Meta)' },
    target: { id: '555000111', name: 'Acme Shoes Pixel' },
    // "You can send up to 1,000 events in the data parameter"
    // (https://developers.facebook.com/docs/marketing-api/conversions-api/using-the-api#send).
    maxEvents: 1000,
    event: (n) => ({
      id: `contract-meta-${n}`,
      name: 'Purchase',
      time: Math.floor(Date.now() / 1000) - 3600,
      value: 10 + n,
      currency: 'USD',
      clickIds: {},
      context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (contract)', actionSource: 'website' },
    }),
    eventsOf: (request: SentRequest) =>
      request.method === 'POST' && request.path.endsWith('/events') ? ((request.body as { data?: unknown[] }).data ?? []) : [],
    // Customer information parameters, SHA-256 of the normalised value
    // (https://developers.facebook.com/docs/marketing-api/conversions-api/parameters/customer-information-parameters).
    identifiers: [
      {
        name: 'em',
        read: (event) => first(userData(event).em),
        expected: (person) => hashed(person.email, (email) => email.trim().toLowerCase()),
      },
      // "Digits only, with the country code": E.164 without its +.
      { name: 'ph', read: (event) => first(userData(event).ph), expected: (person) => hashed(e164(person), (phone) => phone.slice(1)) },
      { name: 'fn', read: (event) => userData(event).fn, expected: (person) => hashed(person.firstName, metaName) },
      { name: 'ln', read: (event) => userData(event).ln, expected: (person) => hashed(person.lastName, metaName) },
      {
        name: 'country',
        read: (event) => userData(event).country,
        expected: (person) => hashed(person.countryCode, (code) => code.trim().toLowerCase()),
      },
    ],
  },
  report: {
    account: { id: '101', name: 'Acme Shoes (Meta)', currency: 'USD' },
    level: 'campaign',
    window: () => ({ from: daysAgo(10), to: daysAgo(4) }),
  },
  // "Handling errors" (https://developers.facebook.com/docs/graph-api/guides/error-handling): { error: { message, type, code, error_subcode, fbtrace_id } }.
  refusals: [
    {
      what: 'code 190, subcode 463: the access token expired',
      during: 'deliver',
      answer: metaAdsError(400, {
        message: 'Error validating access token: Session has expired',
        type: 'OAuthException',
        code: 190,
        error_subcode: 463,
      }),
      kind: 'needs_reauth',
    },
    {
      what: 'code 17: user request limit reached',
      during: 'deliver',
      answer: metaAdsError(400, { message: 'User request limit reached', type: 'OAuthException', code: 17 }),
      kind: 'rate_limited',
    },
    {
      what: 'code 2: service temporarily unavailable',
      during: 'deliver',
      answer: metaAdsError(503, { message: 'Service temporarily unavailable', type: 'OAuthException', code: 2, is_transient: true }),
      kind: 'retryable',
    },
    {
      what: 'code 100: invalid parameter',
      during: 'deliver',
      answer: metaAdsError(400, { message: 'Invalid parameter', type: 'OAuthException', code: 100, error_subcode: 2804003 }),
      kind: 'invalid',
    },
    {
      what: 'code 200: a permission the login lacks',
      during: 'deliver',
      answer: metaAdsError(403, { message: '(#200) Requires ads_management permission', type: 'OAuthException', code: 200 }),
      kind: 'forbidden',
    },
    {
      what: 'code 190: the access token was invalidated',
      during: 'report',
      answer: metaAdsError(400, { message: 'Error validating access token', type: 'OAuthException', code: 190, error_subcode: 460 }),
      kind: 'needs_reauth',
    },
    {
      what: 'code 80003: ads insights throttling',
      during: 'report',
      answer: metaAdsError(400, { message: 'There have been too many calls to this ad-account', type: 'OAuthException', code: 80003 }),
      kind: 'rate_limited',
    },
  ],
};

function metaAdsError(status: number, error: Record<string, unknown>) {
  return { status, body: { error: { ...error, fbtrace_id: 'AcontractTrace' } } };
}

/** A day `days` before today (UTC), YYYY-MM-DD. */
function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}
