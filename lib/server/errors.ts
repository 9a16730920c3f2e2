import { issuesToFieldErrors } from '@/lib/shared/fieldErrors';
/**
 * What went wrong, in the words of the domain: repos, services and connectors throw these, and only
 * the HTTP layer (lib/server/http/errors.ts) turns them into status codes, so a worker can read them too.
 */
export const DOMAIN_ERROR_CODES = [
  'not_found',
  'in_use',
  'needs_reauth',
  'rate_limited',
  'retryable',
  'invalid',
  'forbidden',
  'conflict',
  'plan_limit',
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export interface DomainErrorOptions {
  /** A finer name the API answers instead of `code` (e.g. 'last_owner' for a conflict). */
  reason?: string;
  /** Messages per input field, shown next to the inputs. */
  fieldErrors?: Record<string, string[]>;
  /** For rate_limited: seconds until a retry may pass. */
  retryAfter?: number;
}

/** A failure with a message meant for the user; `code` says what kind, and whether retrying can help. */
export class DomainError extends Error {
  readonly reason?: string;
  readonly fieldErrors?: Record<string, string[]>;
  readonly retryAfter?: number;

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.reason = options.reason;
    this.fieldErrors = options.fieldErrors;
    this.retryAfter = options.retryAfter;
  }
}

/** A document that does not exist (or that the caller may not know exists). */
export const notFound = (message: string) => new DomainError('not_found', message);

/** The caller's role does not allow this. */
export const forbidden = () => new DomainError('forbidden', 'You do not have permission to do this.');

/** Input that passed the schema but not the domain's rules, with the field to blame. */
export const invalidFields = (fieldErrors: Record<string, string[]>) =>
  new DomainError('invalid', 'Some fields are missing or invalid.', { reason: 'invalid_request', fieldErrors });

/** A zod failure's issues as field errors, keyed by path ('events.3.email'; '_' for the whole value). */
export const fieldErrorsOf = issuesToFieldErrors;
