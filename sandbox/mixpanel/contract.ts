import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { AdRow } from '@/lib/shared/connections/rows';
import { SANDBOX_MIXPANEL } from '@/sandbox/platforms';
import type { Answer, ContractCase, Person, SentRequest } from '@/tests/contract/case';

/**
 * Mixpanel's documented facts for the contract suite (tests/contract/connectors.test.ts), against this
 * folder's fake: conversions and Ad Data events through the Import API.
 */

const US = SANDBOX_MIXPANEL.projects.US;
const AD_DATA = 'Ad Data';
const CONNECTION = 'contract-mixpanel';
const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03'];

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const e164 = (person: Person) =>
  person.phone ? parsePhoneNumberFromString(person.phone.replace(/^\s*00/, '+'), person.countryCode as CountryCode)?.number : undefined;
const property = (name: string) => (event: unknown) => (event as { properties?: Record<string, unknown> }).properties?.[name];

/** The Import API's answers (https://developer.mixpanel.com/reference/import-events): { code, error, status }. */
const importError = (code: number, error: string, status: string): Answer => ({ status: code, body: { code, error, status } });

function row(date: string, ad: number): AdRow {
  return {
    date,
    platform: 'meta_ads',
    account_id: 'act_42',
    account_name: 'Acme on Meta',
    currency: 'EUR',
    time_zone: 'Europe/Berlin',
    campaign_id: `cmp${ad % 3}`,
    campaign_name: `Spring sale ${ad % 3}`,
    ad_group_id: `set${ad % 5}`,
    ad_group_name: `Ad set ${ad % 5}`,
    ad_id: `ad${ad}`,
    ad_name: `Ad ${ad}`,
    impressions: 100 + ad,
    clicks: ad % 50,
    spend: 1.25 + ad,
    conversions: 0.5,
    conversion_value: 10,
  };
}

export const mixpanelContract: ContractCase = {
  id: 'mixpanel',
  login: { key: () => ({ username: SANDBOX_MIXPANEL.username, secret: SANDBOX_MIXPANEL.secret, projectId: US.id, residency: 'US' }) },
  apis: [
    // POST https://api.mixpanel.com/import: Mixpanel versions neither the path nor a header.
    { api: 'Import API', requests: /\/import$/, version: null },
  ],
  deliver: {
    account: { id: US.id, name: US.name },
    target: { id: US.id, name: US.name },
    // "Each request to /import can contain up to 2000 events" (https://developer.mixpanel.com/reference/import-events).
    maxEvents: 2000,
    event: (n) => ({
      id: `contract-mixpanel-${n}`,
      name: 'Purchase',
      time: Math.floor(Date.now() / 1000) - 3600,
      value: 10 + n,
      currency: 'USD',
      clickIds: {},
      context: { actionSource: 'website', pageUrl: 'https://shop.example.com/thanks' },
    }),
    eventsOf: (request: SentRequest) => (request.path.endsWith('/import') && Array.isArray(request.body) ? request.body : []),
    // Mixpanel takes any property: ours are the SHA-256 hashes ingest made (lib/shared/conversions/event.ts,
    // identifierFields), email and phone in Meta's forms and the phone's E.164 form beside (docs/MATCH_KEYS.md).
    identifiers: [
      {
        name: 'email_sha256',
        read: property('email_sha256'),
        expected: (person) => (person.email ? sha256(person.email.trim().toLowerCase()) : undefined),
      },
      {
        name: 'phone_sha256',
        read: property('phone_sha256'),
        expected: (person) => {
          const phone = e164(person);
          return phone ? sha256(phone.slice(1)) : undefined;
        },
      },
      {
        name: 'phone_e164_sha256',
        read: property('phone_e164_sha256'),
        expected: (person) => {
          const phone = e164(person);
          return phone ? sha256(phone) : undefined;
        },
      },
    ],
  },
  writer: {
    target: { projectId: US.id, residency: 'US' },
    slice: { connectionId: CONNECTION, platform: 'meta_ads', accountId: 'act_42', from: DAYS[0]!, to: DAYS[2]! },
    rows: DAYS.flatMap((date) => Array.from({ length: 20 }, (_, ad) => row(date, ad))),
    // Mixpanel keeps one event of a name, distinct_id, time and $insert_id: what a query of the project shows.
    stored: (fake) =>
      fake.mixpanel
        .events(US.id, AD_DATA)
        .filter((event) => event.properties.connection_id === CONNECTION)
        .map((event) => event.properties),
  },
  refusals: [
    {
      what: '401: the service account is not accepted',
      during: 'deliver',
      answer: importError(401, 'Invalid credentials', 'error'),
      kind: 'needs_reauth',
    },
    { what: '429: rate limited', during: 'deliver', answer: importError(429, 'Too many requests', 'error'), kind: 'rate_limited' },
    { what: '503: unavailable', during: 'deliver', answer: importError(503, 'Service unavailable', 'error'), kind: 'retryable' },
    {
      what: '400 without failed records: the request itself',
      during: 'deliver',
      answer: importError(400, 'unable to parse request body', 'Bad Request'),
      kind: 'invalid',
    },
    {
      what: '401: the service account is not accepted',
      during: 'writer',
      answer: importError(401, 'Invalid credentials', 'error'),
      kind: 'needs_reauth',
    },
    { what: '429: rate limited', during: 'writer', answer: importError(429, 'Too many requests', 'error'), kind: 'rate_limited' },
  ],
};
