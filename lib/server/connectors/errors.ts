import { DomainError } from '@/lib/server/errors';
import type { ConnectorId } from '@/lib/server/connectors/types';
import { log } from '@/lib/server/log';

/** How a platform's refusal is classified: dead login, slow down, try again, or will never pass. */
export type PlatformErrorCode = 'needs_reauth' | 'rate_limited' | 'retryable' | 'invalid' | 'forbidden';

/**
 * A platform said no. `needs_reauth` means the credentials are gone for good (revoked, expired,
 * password changed) and only the user can fix it by connecting again; `retryable` and
 * `rate_limited` may pass later; `invalid` and `forbidden` never will as they are.
 */
export class PlatformError extends DomainError {
  constructor(
    readonly platform: ConnectorId,
    code: PlatformErrorCode,
    message: string,
    /** When the platform said it will take requests again (a rate limit's retry delay). */
    readonly retryAt?: Date,
  ) {
    super(code, message);
    this.name = 'PlatformError';
  }

  /** A refused delivery request: the rows as sent and the platform's answer (a row refused alone shows them). */
  exchange?: { sent: unknown[]; answer: unknown };
}

/** Attaches what was sent and answered to a refusal of a delivery request. */
export function withExchange(error: PlatformError, sent: unknown[], answer: unknown): PlatformError {
  error.exchange = { sent, answer };
  return error;
}

/** 5xx may pass on retry; any other refusal will not. */
export const retryableIf5xx = (status: number): PlatformErrorCode => (status >= 500 ? 'retryable' : 'invalid');

/**
 * A platform's refusal as its error table reads it: the HTTP status and the platform's own codes (Graph's
 * numeric code, an RPC status and its ErrorInfo reason, a Google Ads error code, Microsoft's fault codes,
 * an OAuth error).
 */
export interface Refusal {
  status: number;
  codes: ReadonlyArray<string | number>;
}

/**
 * One row of a platform's error table, as Airbyte's error mapping has them: the refusals it matches (any
 * status or code listed, `'5xx'` any server error; `when`, if given, must hold too), what they are, and
 * what the person reads.
 */
export interface ErrorRule<R extends Refusal = Refusal> {
  status?: ReadonlyArray<number | '5xx'>;
  codes?: ReadonlyArray<string | number>;
  when?: (refusal: R) => boolean;
  is: PlatformErrorCode;
  says: string | ((refusal: R) => string);
}

/** A platform's refusals classified, first matching row first; its last row matches anything. */
export type ErrorTable<R extends Refusal = Refusal> = ReadonlyArray<ErrorRule<R>>;

function matches<R extends Refusal>(rule: ErrorRule<R>, refusal: R): boolean {
  const listed =
    (!rule.status && !rule.codes) ||
    Boolean(rule.status?.some((status) => status === refusal.status || (status === '5xx' && refusal.status >= 500))) ||
    Boolean(rule.codes?.some((code) => refusal.codes.includes(code)));
  return listed && (rule.when?.(refusal) ?? true);
}

/** The refusal as its platform's table classifies it (a rate limit may say when to come back). */
export function classify<R extends Refusal>(platform: ConnectorId, table: ErrorTable<R>, refusal: R, retryAt?: Date): PlatformError {
  const rule = table.find((row) => matches(row, refusal));
  if (!rule) throw new Error(`${platform}'s error table has no row for HTTP ${refusal.status}: its last row must match anything.`);
  // The platform's codes only: its words may quote what was sent.
  if (rule.is !== 'needs_reauth')
    log.warn(
      { component: 'platforms', platform, status: refusal.status, codes: refusal.codes, is: rule.is },
      'A platform refused a request',
    );
  return new PlatformError(
    platform,
    rule.is,
    typeof rule.says === 'string' ? rule.says : rule.says(refusal),
    rule.is === 'rate_limited' ? retryAt : undefined,
  );
}
