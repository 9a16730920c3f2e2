/**
 * A zod failure's issues as field errors, keyed by path ('events.3.email'; '_' for the whole value):
 * what the API's 400 answers, and what a form checks before sending.
 */
export function issuesToFieldErrors(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): Record<string, string[]> {
  const fieldErrors: Record<string, string[]> = {};
  for (const issue of issues) (fieldErrors[issue.path.map(String).join('.') || '_'] ??= []).push(issue.message);
  return fieldErrors;
}
