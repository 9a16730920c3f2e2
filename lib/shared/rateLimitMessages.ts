/**
 * What a caller over a rate limit reads, built in one place: the server sends these, and the API
 * reference (lib/shared/schemas/submissionContract.ts) shows the same text. Runs anywhere.
 */

const MINUTE = 60;
const HOUR = 60 * MINUTE;

/** "45 seconds", "12 minutes", "3 hours": how long a caller waits, rounded up. */
export function describeWait(seconds: number): string {
  const [amount, unit] =
    seconds < 2 * MINUTE
      ? [seconds, 'second']
      : seconds < 2 * HOUR
        ? [Math.ceil(seconds / MINUTE), 'minute']
        : [Math.ceil(seconds / HOUR), 'hour'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

const count = (n: number) => n.toLocaleString('en-US');

/** The 429 message of POST /api/invitationPreview: previews one address may ask for a minute, and the whole seconds to wait. */
export function tooManyInvitationPreviewsMessage(perMinute: number, retryAfterSeconds: number): string {
  return `Too many invitation previews from this address: at most ${count(perMinute)} a minute. Try again in ${describeWait(retryAfterSeconds)}.`;
}

/** Who a submissions limit counts: one app key, or one client address of a publishable key. */
export type SubmissionLimitScope = 'key' | 'address';

const SCOPE_WORDS: Record<SubmissionLimitScope, string> = { key: 'with this key', address: 'from this address' };

/** The 429 message of POST /api/submissions: the rate in force and the whole seconds to wait. */
export function tooManySubmissionsMessage(scope: SubmissionLimitScope, perSecond: number, retryAfterSeconds: number): string {
  return `Too many submissions ${SCOPE_WORDS[scope]}: at most ${count(perSecond)} events a second. Try again in ${describeWait(retryAfterSeconds)}.`;
}
