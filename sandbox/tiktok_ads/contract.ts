import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { TIKTOK_ADS_VERSION } from '@/lib/server/connectors/tiktok_ads/version';
import type { ContractCase, Person, SentRequest } from '@/tests/contract/case';

/**
 * TikTok's documented facts for the contract suite (tests/contract/connectors.test.ts), against this folder's
 * fake: the Events API 2.0 and the integrated reports of the API for Business version we pin.
 */

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const hashed = (value: string | undefined, normalise: (value: string) => string) => (value ? sha256(normalise(value)) : undefined);

/** E.164 as libphonenumber reads it (a number without its country in the person's own country). */
const e164 = (person: Person) =>
  person.phone ? parsePhoneNumberFromString(person.phone.replace(/^\s*00/, '+'), person.countryCode as CountryCode)?.number : undefined;

const userOf = (event: unknown) => ((event as { user?: Record<string, unknown> }).user ?? {}) as Record<string, unknown>;

/** TikTok's answer: HTTP 200 whatever happened, the refusal in `code` and `message`. */
const tiktokAnswer = (code: number, message: string) => ({ status: 200, body: { code, message, request_id: 'contract', data: {} } });

export const tiktokContract: ContractCase = {
  id: 'tiktok_ads',
  login: { consent: true },
  // Every call goes to https://business-api.tiktok.com/open_api/{version}/… (API for Business, "Versioning").
  apis: [{ api: 'API for Business', requests: /^\/tiktok\/open_api\//, version: { path: `/${TIKTOK_ADS_VERSION.version}/` } }],
  deliver: {
    account: { id: '7100000000000000001', name: 'Acme Shoes (TikTok)' },
    target: { id: 'CSBXSHOES0PIXEL00001', name: 'Acme Shoes Pixel' },
    // Events API 2.0, "Report web events": `data` holds up to 1,000 events per request.
    maxEvents: 1000,
    event: (n) => ({
      id: `contract-tiktok-${n}`,
      name: 'CompletePayment',
      time: Math.floor(Date.now() / 1000) - 3600,
      value: 10 + n,
      currency: 'USD',
      clickIds: { ttclid: `E.C.P.contract${n}` },
      context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (contract)', actionSource: 'website' },
    }),
    eventsOf: (request: SentRequest) =>
      request.method === 'POST' && request.path.endsWith('/event/track/') ? ((request.body as { data?: unknown[] }).data ?? []) : [],
    // Events API 2.0 `user`: email trimmed and lowercased, phone in E.164 (with its +), each SHA-256.
    identifiers: [
      {
        name: 'email',
        read: (event) => userOf(event).email,
        expected: (person) => hashed(person.email, (email) => email.trim().toLowerCase()),
      },
      { name: 'phone', read: (event) => userOf(event).phone, expected: (person) => hashed(e164(person), (phone) => phone) },
    ],
  },
  report: {
    account: { id: '7100000000000000001', name: 'Acme Shoes (TikTok)', currency: 'USD' },
    level: 'campaign',
    window: () => ({ from: daysAgo(10), to: daysAgo(4) }),
  },
  // "Return codes" of the API for Business: HTTP 200 with a non-zero `code`.
  refusals: [
    {
      what: 'code 40105: the access token is invalid or revoked',
      during: 'deliver',
      answer: tiktokAnswer(40105, 'Access token is incorrect or has been revoked.'),
      kind: 'needs_reauth',
    },
    { what: 'code 40100: too many requests', during: 'deliver', answer: tiktokAnswer(40100, 'Too many requests.'), kind: 'rate_limited' },
    { what: 'code 50000: system error', during: 'deliver', answer: tiktokAnswer(50000, 'System error.'), kind: 'retryable' },
    {
      what: 'code 40002: parameter error',
      during: 'deliver',
      answer: tiktokAnswer(40002, 'data[0].event_time: invalid.'),
      kind: 'invalid',
    },
    {
      what: 'code 40001: no permission',
      during: 'deliver',
      answer: tiktokAnswer(40001, 'No permission to operate this pixel.'),
      kind: 'forbidden',
    },
    {
      what: 'code 40102: the access token expired',
      during: 'report',
      answer: tiktokAnswer(40102, 'Access token has expired.'),
      kind: 'needs_reauth',
    },
    { what: 'code 40100: too many requests', during: 'report', answer: tiktokAnswer(40100, 'Too many requests.'), kind: 'rate_limited' },
  ],
};

/** A day `days` before today (UTC), YYYY-MM-DD. */
function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}
