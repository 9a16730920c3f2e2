import { DomainError, type DomainErrorCode } from '@/lib/server/errors';

/** An error the API answers with a status code, a machine-readable code and a human message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors?: Record<string, string[]>,
    /** Response headers that belong to the answer (Retry-After of a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const unauthorized = () => new ApiError(401, 'unauthenticated', 'Sign in to continue.');
// Non-members get the same answer as for an organization that does not exist.
export const organizationNotFound = () => new ApiError(404, 'not_found', 'Organization not found.');

/** The one place a domain error becomes an HTTP status. */
export const STATUS_OF: Record<DomainErrorCode, number> = {
  not_found: 404,
  in_use: 409,
  needs_reauth: 409,
  rate_limited: 429,
  retryable: 502,
  invalid: 400,
  forbidden: 403,
  conflict: 409,
  plan_limit: 403,
};

/** The API's answer to a domain error: its status, its reason (or code), and Retry-After for a rate limit. */
export function toApiError(error: DomainError): ApiError {
  const headers = error.retryAfter !== undefined ? { 'Retry-After': String(error.retryAfter) } : undefined;
  return new ApiError(STATUS_OF[error.code], error.reason ?? error.code, error.message, error.fieldErrors, headers);
}
