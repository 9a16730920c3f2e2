import { classify, type ErrorTable, type PlatformError, type Refusal } from '@/lib/server/connectors/errors';

/**
 * TikTok's refusals, one table for OAuth, advertisers, pixels, reports and the Events API alike. TikTok
 * answers HTTP 200 with `{ code, message, request_id, data }`: `code` 0 is success, any other is the refusal
 * (its "Return codes" appendix; docs/PLATFORMS.md, "TikTok"). A non-200 status is a gateway's answer.
 */

interface TikTokRefusal extends Refusal {
  /** TikTok's own message. */
  words: string;
}

/** The refusal of a TikTok answer: its body `code` (HTTP 200 or not) and message. */
export function tiktokRefusal(status: number, body: Record<string, unknown>): TikTokRefusal {
  const code = typeof body.code === 'number' ? body.code : undefined;
  return {
    status,
    codes: code === undefined ? [] : [code],
    words: typeof body.message === 'string' && body.message ? body.message : `HTTP ${status}`,
  };
}

/** A dead login: access token expired (40102), empty (40104), invalid or revoked (40105), refresh token expired (40107). */
export const TIKTOK_REAUTH = [40102, 40104, 40105, 40107];
/** Throttling: too many requests per second, minute or day (40100), and the Events API's own limit (51021). */
export const TIKTOK_RATE_LIMITED = [40100, 51021];
/** TikTok's side: system error (50000), internal service error (50002). */
export const TIKTOK_RETRYABLE = [50000, 50002];
/** The login may not touch the advertiser or pixel (40001). */
export const TIKTOK_FORBIDDEN = [40001];

/**
 * A dead token needs the user; throttling and TikTok's own errors (5xx) may pass later; an advertiser or pixel
 * the login may not reach is `forbidden`; any other refusal (40002 parameter error, 40110 bad auth code …) is
 * `invalid`, in TikTok's own words, so the delivery log says what to fix.
 */
export const TIKTOK_ADS_ERRORS: ErrorTable<TikTokRefusal> = [
  { status: [401], codes: TIKTOK_REAUTH, is: 'needs_reauth', says: 'TikTok stopped accepting this login — reconnect.' },
  { status: [429], codes: TIKTOK_RATE_LIMITED, is: 'rate_limited', says: 'TikTok is rate limiting this app: it is tried again later.' },
  { status: ['5xx'], codes: TIKTOK_RETRYABLE, is: 'retryable', says: 'TikTok had a temporary problem. Try again in a minute.' },
  { status: [403], codes: TIKTOK_FORBIDDEN, is: 'forbidden', says: ({ words }) => `TikTok refused access: ${words}` },
  { is: 'invalid', says: ({ words }) => `TikTok refused the request: ${words}` },
];

/** A refused TikTok call, classified by the table. */
export const tiktokAdsError = (status: number, body: Record<string, unknown>, retryAt?: Date): PlatformError =>
  classify('tiktok_ads', TIKTOK_ADS_ERRORS, tiktokRefusal(status, body), retryAt);
