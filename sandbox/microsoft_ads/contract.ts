import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { MICROSOFT_ADS_VERSION } from '@/lib/server/connectors/microsoft_ads/version';
import type { Answer, ContractCase, Person, SentRequest } from '@/tests/contract/case';

/**
 * Microsoft Advertising's documented facts for the contract suite (tests/contract/connectors.test.ts),
 * against this folder's fake: offline conversions (Campaign Management) and the Reporting service of
 * the REST API version we pin.
 */

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** "The hashed phone number according to the E.164 standard": with its +. */
const e164 = (person: Person) =>
  person.phone ? parsePhoneNumberFromString(person.phone.replace(/^\s*00/, '+'), person.countryCode as CountryCode)?.number : undefined;

const field = (name: string) => (event: unknown) => (event as Record<string, unknown>)[name];

/**
 * A refusal as the REST API answers it (https://learn.microsoft.com/advertising/guides/handle-service-errors-exceptions):
 * AdApiFaultDetail with Errors, or ApiFaultDetail with OperationErrors; codes from the operation error code list
 * (https://learn.microsoft.com/advertising/guides/operation-error-codes).
 */
function fault(status: number, type: 'AdApiFaultDetail' | 'ApiFaultDetail', code: number, errorCode: string, message: string): Answer {
  const error = { Code: code, Details: null, ErrorCode: errorCode, Message: message };
  const body =
    type === 'AdApiFaultDetail'
      ? { TrackingId: 'contract', Type: type, Errors: [{ ...error, Type: 'AdApiError' }] }
      : { TrackingId: 'contract', Type: type, BatchErrors: [], OperationErrors: [{ ...error, Type: 'OperationError' }] };
  return { status, body };
}

export const microsoftAdsContract: ContractCase = {
  id: 'microsoft_ads',
  login: { consent: true },
  apis: [
    // https://campaign.api.bingads.microsoft.com/CampaignManagement/v13/… and …/Reporting/v13/…
    // (https://learn.microsoft.com/advertising/guides/migrate-to-rest).
    { api: 'Customer Management', requests: /\/CustomerManagement\//, version: { path: `/${MICROSOFT_ADS_VERSION.version}/` } },
    { api: 'Campaign Management', requests: /\/CampaignManagement\//, version: { path: `/${MICROSOFT_ADS_VERSION.version}/` } },
    { api: 'Reporting', requests: /\/Reporting\//, version: { path: `/${MICROSOFT_ADS_VERSION.version}/` } },
    // The URL PollGenerateReport hands out: a file, not an API call (no version).
    { api: 'Report download', requests: /^\/microsoft\/reportdownloads\//, version: null },
  ],
  deliver: {
    account: { id: '301', name: 'Acme Shoes (Microsoft)', managerId: '9001' },
    target: { id: '8001', name: 'Offline purchase' },
    // ApplyOfflineConversions: "You can upload a maximum of 1,000 offline conversions per service call"
    // (https://learn.microsoft.com/advertising/campaign-management-service/applyofflineconversions).
    maxEvents: 1000,
    event: (n) => ({
      id: `contract-microsoft-${n}`,
      name: 'Purchase',
      time: Math.floor(Date.now() / 1000) - 3600,
      value: 10 + n,
      currency: 'USD',
      clickIds: { msclkid: sha256(`contract-click-${n}`).slice(0, 32) },
      context: { actionSource: 'system_generated' },
    }),
    eventsOf: (request: SentRequest) =>
      request.path.endsWith('/OfflineConversions/Apply')
        ? ((request.body as { OfflineConversions?: unknown[] }).OfflineConversions ?? [])
        : [],
    // OfflineConversion (https://learn.microsoft.com/advertising/campaign-management-service/offlineconversion):
    // HashedEmailAddress "the hashed email address using the SHA-256 algorithm" (trimmed, lowercase), HashedPhoneNumber E.164.
    identifiers: [
      {
        name: 'HashedEmailAddress',
        read: field('HashedEmailAddress'),
        expected: (person) => (person.email ? sha256(person.email.trim().toLowerCase()) : undefined),
      },
      {
        name: 'HashedPhoneNumber',
        read: field('HashedPhoneNumber'),
        expected: (person) => {
          const phone = e164(person);
          return phone ? sha256(phone) : undefined;
        },
      },
    ],
  },
  report: {
    account: { id: '301', name: 'Acme Shoes (Microsoft)', currency: 'USD', managerId: '9001' },
    level: 'campaign',
    window: () => ({ from: daysAgo(10), to: daysAgo(4) }),
  },
  refusals: [
    {
      what: '109 AuthenticationTokenExpired',
      during: 'deliver',
      answer: fault(401, 'AdApiFaultDetail', 109, 'AuthenticationTokenExpired', 'Authentication token expired.'),
      kind: 'needs_reauth',
    },
    {
      what: '117 CallRateExceeded',
      during: 'deliver',
      answer: fault(
        429,
        'AdApiFaultDetail',
        117,
        'CallRateExceeded',
        'You have exceeded the number of calls that you are allowed to make in a minute.',
      ),
      kind: 'rate_limited',
    },
    {
      what: '106 UserIsNotAuthorized',
      during: 'deliver',
      answer: fault(400, 'AdApiFaultDetail', 106, 'UserIsNotAuthorized', 'You are not authorized to call this operation.'),
      kind: 'forbidden',
    },
    {
      what: '0 InternalError',
      during: 'deliver',
      answer: fault(500, 'AdApiFaultDetail', 0, 'InternalError', 'An internal error has occurred.'),
      kind: 'retryable',
    },
    {
      what: '1001 NullParameter',
      during: 'deliver',
      answer: fault(400, 'ApiFaultDetail', 1001, 'NullParameter', 'OfflineConversions cannot be null.'),
      kind: 'invalid',
    },
    {
      what: '105 InvalidCredentials',
      during: 'report',
      answer: fault(401, 'AdApiFaultDetail', 105, 'InvalidCredentials', 'Authentication failed.'),
      kind: 'needs_reauth',
    },
    {
      what: '2003 ReportingServiceAccountNotAuthorized',
      during: 'report',
      answer: fault(
        400,
        'ApiFaultDetail',
        2003,
        'ReportingServiceAccountNotAuthorized',
        'The user is not authorized to report on the account.',
      ),
      kind: 'forbidden',
    },
  ],
};

/** A day `days` before today (UTC), YYYY-MM-DD. */
function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}
