import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { DATA_MANAGER_VERSION, GOOGLE_ADS_VERSION } from '@/lib/server/connectors/google_ads/version';
import type { Answer, ContractCase, Person, SentRequest } from '@/tests/contract/case';

/**
 * Google Ads' documented facts for the contract suite (tests/contract/connectors.test.ts), against
 * the fakes of this folder and sandbox/google: conversions through the Data Manager API, ad
 * performance through the Google Ads API's searchStream, each under the version we pin.
 */

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * "Format user data" (https://developers.google.com/data-manager/api/get-started/formatting): email
 * lowercase without whitespace; for gmail.com and googlemail.com, no dots in the part before the @.
 * (We also drop a +tag there: the same mailbox, docs/MATCH_KEYS.md.)
 */
function googleEmail(value: string): string {
  const email = value.replace(/\s/g, '').toLowerCase();
  const [local = '', domain = ''] = email.split('@');
  if (domain !== 'gmail.com' && domain !== 'googlemail.com') return email;
  return `${local.split('+')[0]!.replace(/\./g, '')}@${domain}`;
}

/** "Include the plus sign (+) and the country code": E.164. */
const e164 = (person: Person) =>
  person.phone ? parsePhoneNumberFromString(person.phone.replace(/^\s*00/, '+'), person.countryCode as CountryCode)?.number : undefined;

/** AddressInfo names: "all lowercase, with no punctuation, no leading or trailing whitespace, and hashed". */
const googleName = (value: string) =>
  value
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Google sends an address only with all four of its required parts. */
const hasAddress = (person: Person) => Boolean(person.firstName && person.lastName && person.countryCode && person.postalCode);

/** One of an event's userIdentifiers, by its field (emailAddress, phoneNumber, address). */
function identifier(event: unknown, field: string): unknown {
  const identifiers = (event as { userData?: { userIdentifiers?: Array<Record<string, unknown>> } }).userData?.userIdentifiers ?? [];
  return identifiers.find((entry) => field in entry)?.[field];
}
const addressPart = (event: unknown, part: string) => (identifier(event, 'address') as Record<string, unknown> | undefined)?.[part];

/** google.rpc.Status, as Google's REST APIs answer a refusal (https://cloud.google.com/apis/design/errors). */
function rpcError(code: number, status: string, message: string, details: unknown[] = []): Answer {
  return { status: code, body: { error: { code, status, message, details } } };
}

export const googleAdsContract: ContractCase = {
  id: 'google_ads',
  login: { consent: true },
  apis: [
    // https://datamanager.googleapis.com/v1/events:ingest (https://developers.google.com/data-manager/api/reference/rest).
    { api: 'Data Manager API', requests: /^\/datamanager\//, version: { path: `/${DATA_MANAGER_VERSION.version}/` } },
    // https://googleads.googleapis.com/{version}/customers/… (https://developers.google.com/google-ads/api/rest/overview).
    { api: 'Google Ads API', requests: /^\/googleads\//, version: { path: `/${GOOGLE_ADS_VERSION.version}/` } },
  ],
  deliver: {
    account: { id: '5556667778', name: 'Sandbox Direct Store', managerId: null },
    target: { id: '9001', name: 'Purchase' },
    // events[]: "At most 2000 Event resources can be sent in a single request"
    // (https://developers.google.com/data-manager/api/reference/rest/v1/events/ingest).
    maxEvents: 2000,
    event: (n) => ({
      id: `contract-google-${n}`,
      name: 'Purchase',
      time: Math.floor(Date.now() / 1000) - 3600,
      value: 10 + n,
      currency: 'USD',
      clickIds: { gclid: `Cj0KCQ-contract-${n}` },
      context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (contract)', actionSource: 'website' },
    }),
    eventsOf: (request: SentRequest) =>
      request.method === 'POST' && request.path.endsWith('/events:ingest') ? ((request.body as { events?: unknown[] }).events ?? []) : [],
    // encoding HEX: each hashed value is SHA-256 in hex of the formatted value.
    identifiers: [
      {
        name: 'emailAddress',
        read: (event) => identifier(event, 'emailAddress'),
        expected: (person) => (person.email ? sha256(googleEmail(person.email)) : undefined),
      },
      {
        name: 'phoneNumber',
        read: (event) => identifier(event, 'phoneNumber'),
        expected: (person) => {
          const phone = e164(person);
          return phone ? sha256(phone) : undefined;
        },
      },
      {
        name: 'address.givenName',
        read: (event) => addressPart(event, 'givenName'),
        expected: (person) => (hasAddress(person) ? sha256(googleName(person.firstName!)) : undefined),
      },
      {
        name: 'address.familyName',
        read: (event) => addressPart(event, 'familyName'),
        expected: (person) => (hasAddress(person) ? sha256(googleName(person.lastName!)) : undefined),
      },
      // regionCode and postalCode go in clear: "the 2-letter region code in ISO-3166-1 alpha-2".
      {
        name: 'address.regionCode',
        read: (event) => addressPart(event, 'regionCode'),
        expected: (person) => (hasAddress(person) ? person.countryCode!.trim().toUpperCase() : undefined),
      },
    ],
  },
  report: {
    account: { id: '5556667778', name: 'Sandbox Direct Store', managerId: null },
    level: 'campaign',
    window: () => ({ from: daysAgo(10), to: daysAgo(4) }),
  },
  refusals: [
    {
      what: '401 UNAUTHENTICATED: the token was revoked',
      during: 'deliver',
      answer: rpcError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'),
      kind: 'needs_reauth',
    },
    {
      what: '403 ACCESS_TOKEN_SCOPE_INSUFFICIENT: the login lacks the datamanager scope',
      during: 'deliver',
      answer: rpcError(403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', domain: 'googleapis.com' },
      ]),
      kind: 'needs_reauth',
    },
    {
      what: '403 PERMISSION_DENIED: the login does not operate the account',
      during: 'deliver',
      answer: rpcError(403, 'PERMISSION_DENIED', 'The caller does not have permission'),
      kind: 'forbidden',
    },
    {
      what: '429 RESOURCE_EXHAUSTED: quota',
      during: 'deliver',
      answer: rpcError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.'),
      kind: 'rate_limited',
    },
    {
      what: '503 UNAVAILABLE',
      during: 'deliver',
      answer: rpcError(503, 'UNAVAILABLE', 'The service is currently unavailable.'),
      kind: 'retryable',
    },
    {
      what: '400 INVALID_ARGUMENT naming an event',
      during: 'deliver',
      answer: rpcError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'events[0].eventTimestamp', description: 'Event timestamp is too old.' }],
        },
      ]),
      kind: 'invalid',
    },
    // Google Ads API failures (https://developers.google.com/google-ads/api/docs/best-practices/error-types).
    {
      what: '401 UNAUTHENTICATED: OAUTH_TOKEN_REVOKED',
      during: 'report',
      answer: rpcError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'),
      kind: 'needs_reauth',
    },
    {
      what: '403 PERMISSION_DENIED: USER_PERMISSION_DENIED',
      during: 'report',
      answer: rpcError(403, 'PERMISSION_DENIED', 'The caller does not have permission'),
      kind: 'forbidden',
    },
    {
      what: '429 RESOURCE_EXHAUSTED: RESOURCE_TEMPORARILY_EXHAUSTED',
      during: 'report',
      answer: rpcError(429, 'RESOURCE_EXHAUSTED', 'Too many requests.', [
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' },
      ]),
      kind: 'rate_limited',
    },
  ],
};

/** A day `days` before today (UTC), YYYY-MM-DD. */
function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}
