import { createHash } from 'node:crypto';
import { DomainError } from '@/lib/server/errors';
import { describeWait } from '@/lib/shared/rateLimitMessages';
import { addToCounters, readCounts } from '@/lib/server/repos/rateLimits';

/**
 * Abuse limits, kept in Firestore so that every app instance counts against the same numbers:
 * fixed windows aligned to the clock, one counter document per limit, key and window
 * (`rate_limits/{limit}_{sha256(key)}_{window}`), with `expires_at` at the window's end for a TTL
 * policy (give `rate_limits` one on `expires_at`; an ended window is never read again anyway).
 * For rare actions only (a write per request): the submissions endpoint has its own limits, with no
 * write per request (submissionLimits.ts).
 */
export interface RateLimit {
  /** Part of the counter document's id. */
  name: string;
  limit: number;
  windowSeconds: number;
  /** Overrides `limit` when set to a positive integer (tests, or tuning without a deploy). */
  env: string;
  /** What a caller over the limit reads. */
  message: (limit: number, retryAfter: string) => string;
}

/** One request counted against one limit for one key (an app key, a user id, an organization id). */
export interface RateLimitHit {
  rule: RateLimit;
  key: string;
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Send test event of one conversion: each is a real call to the ad platform. */
export const TEST_EVENTS_PER_CONVERSION: RateLimit = {
  name: 'test_events_per_conversion',
  limit: 5,
  windowSeconds: MINUTE,
  env: 'RATE_LIMIT_TEST_EVENTS_PER_CONVERSION_PER_MINUTE',
  message: (limit, retryAfter) => `Test events of this conversion are limited to ${limit} a minute. Send the next one in ${retryAfter}.`,
};

/** Invitation emails one person sends (new and resent), in every organization together. */
const INVITATIONS_PER_USER: RateLimit = {
  name: 'invitations_per_user',
  limit: 20,
  windowSeconds: HOUR,
  env: 'RATE_LIMIT_INVITATIONS_PER_USER_PER_HOUR',
  message: (limit, retryAfter) => `You have sent too many invitations: at most ${limit} an hour. Try again in ${retryAfter}.`,
};

/** Invitation emails of one organization, whoever sends them. */
const INVITATIONS_PER_ORGANIZATION: RateLimit = {
  name: 'invitations_per_organization',
  limit: 50,
  windowSeconds: DAY,
  env: 'RATE_LIMIT_INVITATIONS_PER_ORGANIZATION_PER_DAY',
  message: (limit, retryAfter) => `This organization has sent too many invitations: at most ${limit} a day. Try again in ${retryAfter}.`,
};

/** Every invitation email counts for its sender and for the organization. */
export const invitationLimits = (uid: string, orgId: string): RateLimitHit[] => [
  { rule: INVITATIONS_PER_USER, key: uid },
  { rule: INVITATIONS_PER_ORGANIZATION, key: orgId },
];

/** The limit in force: the named constant, unless its environment variable overrides it. */
function limitOf(rule: RateLimit): number {
  const override = Number(process.env[rule.env]);
  return Number.isInteger(override) && override > 0 ? override : rule.limit;
}

/** One counter document per limit, key and window; windows are aligned to the clock (whole minutes, hours, days). */
function counterOf({ rule, key }: RateLimitHit, now: number) {
  const windowMs = rule.windowSeconds * 1000;
  const index = Math.floor(now / windowMs);
  return {
    rule,
    limit: limitOf(rule),
    id: `${rule.name}_${createHash('sha256').update(key).digest('hex')}_${index}`,
    name: rule.name,
    startsAt: index * windowMs,
    endsAt: (index + 1) * windowMs,
  };
}

type Counter = ReturnType<typeof counterOf>;

function refusal(full: Counter[]): DomainError {
  const now = Date.now();
  const longest = full.reduce((a, b) => (b.endsAt > a.endsAt ? b : a));
  const retryAfter = Math.max(1, Math.ceil((longest.endsAt - now) / 1000));
  return new DomainError('rate_limited', longest.rule.message(longest.limit, describeWait(retryAfter)), { retryAfter });
}

/**
 * Counts one request against every limit given, or refuses it (rate_limited, with retryAfter seconds)
 * when any of them is used up; call it before the work it guards, so a refused request writes and
 * sends nothing. No transaction: a flood would make transactions on one counter queue and retry for
 * seconds. Instead a full counter is refused on a read alone, and otherwise the request adds itself
 * atomically and reads its place: the k-th request admitted saw at least k, so at most `limit` pass.
 * A request refused after adding itself takes its count back.
 */
export async function consumeRateLimits(hits: RateLimitHit[]): Promise<void> {
  const now = Date.now();
  const list = hits.map((hit) => counterOf(hit, now));
  const before = await readCounts(list);
  const full = list.filter((counter, index) => before[index]! >= counter.limit);
  if (full.length) throw refusal(full);

  await addToCounters(list, 1);
  const after = await readCounts(list);
  const over = list.filter((counter, index) => after[index]! > counter.limit);
  if (over.length) {
    await addToCounters(list, -1);
    throw refusal(over);
  }
}
