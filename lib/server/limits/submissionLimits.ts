import { randomUUID } from 'node:crypto';
import { sha256Hex } from '@/lib/server/sha256';
import { DomainError } from '@/lib/server/errors';
import { errorFields, log } from '@/lib/server/log';
import { touch } from '@/lib/server/limits/memoryLimits';
import { TokenBucket } from '@/lib/server/limits/tokenBucket';
import { tooManySubmissionsMessage, type SubmissionLimitScope } from '@/lib/shared/rateLimitMessages';
import { instanceCountsPath, sumInstanceCounts, writeInstanceCount } from '@/lib/server/repos/rateLimits';

/**
 * The limits of POST /api/submissions, enforced without a Firestore write per request (a counter document
 * written by every request of a busy key would be written thousands of times a second; Firestore sustains
 * about one write a second on a document):
 *
 * - per key, in this instance: a token bucket of the plan's events a second, holding one second of them
 *   (a burst of a second's events passes at once, a flood stops after it);
 * - per key, all instances together: a coarse budget of that rate × SHARED_WINDOW_SECONDS per clock-aligned
 *   window. Each instance writes how many events it admitted in the window to a document of its own
 *   (`rate_limits/{name}_{sha256(key)}_{window}/rate_limit_instances/{instance}`) at most once a second per key, and
 *   reads the window's documents back: once their sum reaches the budget, every instance refuses the key
 *   until the window ends. Several instances may together pass a few seconds of traffic over the budget
 *   before they see it; the buckets bound each one meanwhile.
 * - a publishable key (the website snippet, public by design) also per client address, in this instance:
 *   one visitor's browser cannot use up the website's allowance.
 *
 * Events are counted, not requests: a batch of 500 uses 500.
 */

/** One limit of the submissions endpoint: its name, its override and what a caller over it reads. */
interface SubmissionLimit {
  name: string;
  /** Overrides the rate when set to a positive integer (tests, the bench, tuning without a deploy). */
  env: string;
  /** Whom it counts: names the limit in the message a caller over it reads. */
  scope: SubmissionLimitScope;
}

export const SUBMISSIONS_PER_KEY: SubmissionLimit = {
  name: 'submissions_per_key',
  env: 'RATE_LIMIT_SUBMISSIONS_PER_KEY_PER_SECOND',
  scope: 'key',
};

/** A website visitor sends a few events a page; a script looping from one address is stopped here. */
export const PUBLISHABLE_PER_ADDRESS_DEFAULT = 20;
export const SUBMISSIONS_PER_ADDRESS: SubmissionLimit = {
  name: 'submissions_per_address',
  env: 'RATE_LIMIT_SUBMISSIONS_PER_ADDRESS_PER_SECOND',
  scope: 'address',
};

/** The shared budget's window: long enough that its documents are written rarely, short enough to forgive soon. */
export const SHARED_WINDOW_SECONDS = 60;
/** How often an instance writes and reads a key's shared count at most. */
export const SHARED_FLUSH_MS = 1000;
/** This instance's name in the shared budget's documents. */
const INSTANCE = randomUUID();

/** The rate in force: the plan's, unless the limit's environment variable overrides it. */
export function perSecondOf(limit: SubmissionLimit, planRate: number): number {
  const override = Number(process.env[limit.env]);
  return Number.isInteger(override) && override > 0 ? override : planRate;
}

/** What this instance knows of one key. */
interface KeyState {
  /** Tokens are events; it holds one second of them. */
  bucket: TokenBucket;
  hash: string;
  window: number;
  /** Events this instance admitted in `window`; what it last wrote to its shared document. */
  admitted: number;
  written: number;
  lastFlush: number;
  flushing: boolean;
  /** The shared budget is spent until then (ms since epoch). */
  blockedUntil: number;
}

const keys = new Map<string, KeyState>();
const addresses = new Map<string, TokenBucket>();

const windowOf = (now: number) => Math.floor(now / (SHARED_WINDOW_SECONDS * 1000));

/** The refusal a caller over `limit` gets: the 429's message and Retry-After (whole seconds, at least 1). */
export function refused(limit: SubmissionLimit, perSecond: number, seconds: number): DomainError {
  const retryAfter = Math.max(1, Math.ceil(seconds));
  return new DomainError('rate_limited', tooManySubmissionsMessage(limit.scope, perSecond, retryAfter), { retryAfter });
}

/** The id of one key's shared counts in a window (one document per instance under it). */
const sharedIdOf = (hash: string, window: number) => `${SUBMISSIONS_PER_KEY.name}_${hash}_${window}`;

/** Where the instances' counts of a key's window at `at` are: what another instance writes (tests). */
export const sharedCountsPath = (key: string, at: number) => instanceCountsPath(sharedIdOf(sha256Hex(key), windowOf(at)));

/**
 * Writes this instance's count of the window and reads the others': once the sum reaches the budget, the
 * key is refused here until the window ends. Never awaited by a request; a failure is tried again at the
 * next flush (the buckets still hold meanwhile).
 */
async function flush(state: KeyState, perSecond: number): Promise<void> {
  const { window, admitted } = state;
  const windowMs = SHARED_WINDOW_SECONDS * 1000;
  state.flushing = true;
  state.lastFlush = Date.now();
  try {
    const shared = sharedIdOf(state.hash, window);
    await writeInstanceCount(shared, INSTANCE, {
      name: SUBMISSIONS_PER_KEY.name,
      count: admitted,
      startsAt: window * windowMs,
      endsAt: (window + 1) * windowMs,
    });
    state.written = Math.max(state.written, admitted);
    // The next write waits a second from this one's end, not its start: a slow commit does not bring two together.
    state.lastFlush = Date.now();
    const total = await sumInstanceCounts(shared);
    if (total >= perSecond * SHARED_WINDOW_SECONDS && state.window === window)
      state.blockedUntil = Math.max(state.blockedUntil, (window + 1) * windowMs);
  } catch (error) {
    log.warn({ component: 'submissions', ...errorFields(error) }, 'shared rate-limit count not written');
  } finally {
    state.flushing = false;
  }
}

export interface SubmissionsToAdmit {
  key: string;
  /** The key's plan rate (events a second), before any override. */
  planPerSecond: number;
  events: number;
  /** A publishable key's client address: limited on its own too. */
  address?: string;
}

/**
 * Admits `events` for a key (and a publishable key's address), or refuses them (rate_limited, with
 * retryAfter) without taking anything: call it before the work it guards. No Firestore call on the
 * request's path; at most one write and one read a second per key, in the background.
 */
export function admitSubmissions({ key, planPerSecond, events, address }: SubmissionsToAdmit): void {
  const now = Date.now();
  const perSecond = perSecondOf(SUBMISSIONS_PER_KEY, planPerSecond);
  const state = touch(keys, key, () => ({
    bucket: new TokenBucket(perSecond),
    hash: sha256Hex(key),
    window: windowOf(now),
    admitted: 0,
    written: 0,
    lastFlush: 0,
    flushing: false,
    blockedUntil: 0,
  }));
  if (state.blockedUntil > now) throw refused(SUBMISSIONS_PER_KEY, perSecond, (state.blockedUntil - now) / 1000);

  const addressBucket =
    address === undefined
      ? null
      : touch(
          addresses,
          `${key}\n${address}`,
          () => new TokenBucket(perSecondOf(SUBMISSIONS_PER_ADDRESS, PUBLISHABLE_PER_ADDRESS_DEFAULT)),
        );
  if (addressBucket) {
    const addressRate = perSecondOf(SUBMISSIONS_PER_ADDRESS, PUBLISHABLE_PER_ADDRESS_DEFAULT);
    const wait = addressBucket.take(events, now, addressRate);
    if (wait > 0) throw refused(SUBMISSIONS_PER_ADDRESS, addressRate, wait);
  }
  const wait = state.bucket.take(events, now, perSecond);
  // The address's tokens stay spent: a visitor over the website's allowance is not the website's problem.
  if (wait > 0) throw refused(SUBMISSIONS_PER_KEY, perSecond, wait);

  const window = windowOf(now);
  if (window !== state.window) {
    state.window = window;
    state.admitted = 0;
    state.written = 0;
  }
  state.admitted += events;
  if (!state.flushing && now - state.lastFlush >= SHARED_FLUSH_MS && state.admitted !== state.written) void flush(state, perSecond);
}

/** Forgets what this instance counted (tests that start each case afresh). */
export function resetSubmissionLimits(): void {
  keys.clear();
  addresses.clear();
}
