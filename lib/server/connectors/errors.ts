import { DomainError } from '@/lib/server/errors';
import type { ConnectorId } from '@/lib/server/connectors/types';

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
