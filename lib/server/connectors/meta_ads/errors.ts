import { classify, type ErrorTable, type PlatformError, type Refusal } from '@/lib/server/connectors/errors';

/**
 * Meta's refusals, one table for Facebook Login, listings, Insights and the Conversions API alike. Graph
 * puts its `error` in the body: a numeric `code` (and `error_subcode`), `is_transient`, and for the
 * Conversions API the title and words it shows a person. Codes from Meta's error reference and its rate
 * limiting page (docs/PLATFORMS.md, "Meta").
 */

interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
  fbtrace_id?: string;
}

interface GraphRefusal extends Refusal {
  /** Meta's own words: its title and message. */
  words: string;
  subcode: number | undefined;
  transient: boolean;
}

function graphRefusal(status: number, body: Record<string, unknown>): GraphRefusal {
  const error = (body.error ?? {}) as GraphErrorBody;
  return {
    status,
    codes: error.code === undefined ? [] : [error.code],
    words: [error.error_user_title, error.error_user_msg ?? error.message].filter(Boolean).join(': ') || `HTTP ${status}`,
    subcode: error.error_subcode,
    transient: error.is_transient === true,
  };
}

/** Throttling: application (4), user (17), a call-type cap (613) and the Business Use Case limits (80000–80014). */
const RATE_LIMITED = [4, 17, 613, ...Array.from({ length: 15 }, (_, i) => 80000 + i)];
/** Permission errors: 10 and 200–299 (the login lacks a permission: no retry or split helps). */
const PERMISSION = [10, ...Array.from({ length: 100 }, (_, i) => 200 + i)];

/**
 * A dead token needs the user (190: invalid, expired, password changed); throttling and transient errors
 * (1 unknown, 2 service unavailable, `is_transient`, 5xx) may pass later; an object the login cannot
 * reach (100 with subcode 33) or a missing permission is `forbidden`, as splitting the batch cannot help;
 * any other refusal is `invalid`, in Meta's own words, so the delivery log says what to fix.
 */
export const META_ADS_ERRORS: ErrorTable<GraphRefusal> = [
  { codes: [190], is: 'needs_reauth', says: 'Meta stopped accepting this login — reconnect.' },
  { status: [429], codes: RATE_LIMITED, is: 'rate_limited', says: 'Meta is rate limiting this ad account: it is tried again later.' },
  { status: ['5xx'], codes: [1, 2], is: 'retryable', says: 'Meta had a temporary problem. Try again in a minute.' },
  { when: ({ transient }) => transient, is: 'retryable', says: 'Meta had a temporary problem. Try again in a minute.' },
  { codes: PERMISSION, is: 'forbidden', says: ({ words }) => `Meta refused access: ${words}` },
  { codes: [100], when: ({ subcode }) => subcode === 33, is: 'forbidden', says: ({ words }) => `Meta refused access: ${words}` },
  { is: 'invalid', says: ({ words }) => `Meta refused the request: ${words}` },
];

/** A refused Graph call, classified by the table (a throttled one may say when to come back). */
export const metaAdsError = (status: number, body: Record<string, unknown>, retryAt?: Date): PlatformError =>
  classify('meta_ads', META_ADS_ERRORS, graphRefusal(status, body), retryAt);
