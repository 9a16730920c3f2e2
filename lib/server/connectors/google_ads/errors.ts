import { classify, type ErrorTable, type PlatformError, type Refusal } from '@/lib/server/connectors/errors';

/**
 * Google's refusals, one table for the Google Ads API (accounts, conversion actions, searchStream) and
 * the Data Manager API (conversions). Both answer a google.rpc.Status: its `status`, an ErrorInfo `reason`,
 * a BadRequest's field violations (Data Manager), or a GoogleAdsFailure's error codes (Google Ads);
 * docs/PLATFORMS.md, "Google", cites each.
 */

interface RpcDetail {
  '@type'?: string;
  reason?: string;
  fieldViolations?: Array<{ field?: string; description?: string; reason?: string }>;
  errors?: Array<{ errorCode?: Record<string, unknown>; message?: string }>;
}

interface GoogleRefusal extends Refusal {
  /** Google's own words: its message and the first fields or errors it names. */
  text: string;
  /** Every field Google names is the destination (the conversion action): splitting the batch cannot help. */
  destinationOnly: boolean;
}

const NAMED = 5;

function googleRefusal(status: number, body: Record<string, unknown>): GoogleRefusal {
  const error = (body.error ?? {}) as { status?: string; message?: string; details?: RpcDetail[] };
  const details = error.details ?? [];
  const violations = details.flatMap((detail) =>
    detail['@type']?.endsWith('google.rpc.BadRequest') ? (detail.fieldViolations ?? []) : [],
  );
  const failures = details.flatMap((detail) => detail.errors ?? []);
  const reasons = details.flatMap((detail) => (detail['@type']?.endsWith('google.rpc.ErrorInfo') && detail.reason ? [detail.reason] : []));
  const failureCodes = failures.flatMap((failure) => Object.values(failure.errorCode ?? {}).map(String));
  const named = [
    ...violations.map(
      ({ field, description, reason }) => `${field ? `${field}: ` : ''}${description ?? ''}${reason ? ` (${reason})` : ''}`,
    ),
    ...failures.map((failure) => `${Object.values(failure.errorCode ?? {}).join(' ')}: ${failure.message ?? ''}`.trim()),
  ];
  const more = named.length > NAMED ? [`… and ${named.length - NAMED} more`] : [];
  const said =
    failures.length > 0 ? named.slice(0, NAMED).join('; ') : [error.message ?? 'No message.', ...named.slice(0, NAMED)].join(' ');
  return {
    status,
    codes: [...(error.status ? [error.status] : []), ...reasons, ...failureCodes],
    text: [said || error.message || error.status || `HTTP ${status}`, ...more].join(' '),
    destinationOnly: violations.length > 0 && violations.every((violation) => violation.field?.startsWith('destinations')),
  };
}

/**
 * A dead login needs a new consent, and so does one without the datamanager scope; a 403 is an account
 * the login does not operate (a client reached without its manager); 429 slows down; 5xx passes later. A
 * 400 refuses the whole request: `invalid` lets a delivery split the batch to find the bad rows, unless
 * Google names only the destination, where splitting cannot help.
 */
export const GOOGLE_ADS_ERRORS: ErrorTable<GoogleRefusal> = [
  { status: [401], codes: ['UNAUTHENTICATED'], is: 'needs_reauth', says: 'Google Ads stopped accepting this login — reconnect.' },
  {
    codes: ['ACCESS_TOKEN_SCOPE_INSUFFICIENT'],
    is: 'needs_reauth',
    says: 'This Google login was not given every permission SignalBridge asks for (conversions need Data Manager). Connect Google Ads again and allow every permission.',
  },
  {
    status: [403],
    codes: ['PERMISSION_DENIED'],
    is: 'forbidden',
    says: ({ text }) => `This Google login does not operate that Google Ads account or conversion action. Google: ${text}`,
  },
  {
    status: [429],
    codes: ['RESOURCE_EXHAUSTED'],
    is: 'rate_limited',
    says: 'Google Ads asks us to slow down: it is tried again shortly.',
  },
  { status: ['5xx'], is: 'retryable', says: 'Google Ads could not answer. Try again in a minute.' },
  {
    codes: ['REQUESTED_METRICS_FOR_MANAGER'],
    is: 'invalid',
    says: 'A Google Ads manager account has no ads of its own: report on its client accounts instead.',
  },
  {
    when: ({ destinationOnly }) => destinationOnly,
    is: 'forbidden',
    says: ({ text }) => `Google Ads refused the conversion action: ${text}`,
  },
  { is: 'invalid', says: ({ text }) => `Google Ads refused the request: ${text}` },
];

/** A refused Google Ads or Data Manager call, classified by the table (a quota error may say when to come back). */
export const googleAdsError = (status: number, body: Record<string, unknown>, retryAt?: Date): PlatformError =>
  classify('google_ads', GOOGLE_ADS_ERRORS, googleRefusal(status, body), retryAt);
