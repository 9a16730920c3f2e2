/** An error a handler means to show the caller: its status, a stable code and a human message. */
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
export const forbidden = () => new ApiError(403, 'forbidden', 'You do not have permission to do this.');
// Non-members get the same answer as for an organization that does not exist.
export const organizationNotFound = () => new ApiError(404, 'not_found', 'Organization not found.');
/** An id in the path that cannot name anything: the answer for something that does not exist. */
export const notFound = () => new ApiError(404, 'not_found', 'Not found.');
/** A rate limit was reached: the caller may try again after `retryAfterSeconds`. */
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new ApiError(429, 'rate_limited', message, undefined, { 'Retry-After': String(retryAfterSeconds) });
