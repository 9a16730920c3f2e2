import { PlatformError } from '@/lib/server/connectors/errors';
import { log } from '@/lib/server/log';

/** What Graph puts in `error` (the Conversions API adds the subcode and the words it shows a person). */
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

// Codes from Meta's error reference (docs/PLATFORMS.md, "Meta").
const RATE_LIMITED = [4, 17, 613, 80003];
/** Unknown error (1) and service temporarily unavailable (2): Meta asks callers to retry. */
const TRANSIENT = [1, 2];
/** Permission errors (10, 200–299): the login lacks a permission; no retry or split helps. */
const isPermission = (code: number) => code === 10 || (code >= 200 && code <= 299);

/**
 * The one classifier of Meta's refusals, for logins, listings and deliveries alike: a dead token
 * needs the user (needs_reauth), throttling and transient errors may pass later, an object the
 * login cannot reach or a missing permission is `forbidden` (splitting the batch cannot help), and
 * any other refusal is `invalid` with Meta's own words, so the delivery log says what to fix.
 */
export function graphError(status: number, body: Record<string, unknown>): PlatformError {
  const error = (body.error ?? {}) as GraphErrorBody;
  const code = error.code ?? 0;
  // 190: the token is invalid, expired or was invalidated (460 password changed, 463 expired).
  if (code === 190)
    return new PlatformError('meta_ads', 'needs_reauth', 'Meta no longer accepts this login: it expired or was invalidated.');
  if (RATE_LIMITED.includes(code) || status === 429) {
    return new PlatformError('meta_ads', 'rate_limited', 'Meta is rate limiting this account. Try again in a few minutes.');
  }
  if (TRANSIENT.includes(code) || error.is_transient === true || status >= 500) {
    log.warn(
      { component: 'platforms', platform: 'meta_ads', status, code, subcode: error.error_subcode, fbtraceId: error.fbtrace_id },
      'Meta had a transient error',
    );
    return new PlatformError('meta_ads', 'retryable', 'Meta had a temporary problem. Try again in a minute.');
  }
  const words = [error.error_user_title, error.error_user_msg ?? error.message].filter(Boolean).join(': ') || `HTTP ${status}`;
  if ((code === 100 && error.error_subcode === 33) || isPermission(code)) {
    return new PlatformError('meta_ads', 'forbidden', `Meta refused access: ${words}`);
  }
  // Meta's own words may quote a parameter sent: its codes and trace id (which Meta's support reads) only.
  log.warn(
    { component: 'platforms', platform: 'meta_ads', status, code, subcode: error.error_subcode, fbtraceId: error.fbtrace_id },
    'Meta answered an error',
  );
  return new PlatformError('meta_ads', 'invalid', `Meta refused the request: ${words}`);
}
