import type { ApiFailure } from '@/store/api';

/** The spec's message for the failed action, with the server's reason when it is one a user can act on. */
export function failureMessage(specMessage: string, error: unknown): string {
  const failure = error as Partial<ApiFailure> | undefined;
  const actionable = failure?.status && [400, 403, 404, 409, 429].includes(failure.status) && failure.message;
  return actionable && failure.message !== specMessage ? `${specMessage} ${failure.message}` : specMessage;
}
