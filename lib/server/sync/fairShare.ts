/**
 * Who runs next among the backfill chunks a worker holds: organizations take turns (round robin), and
 * no ad account has more jobs at once than its platform tolerates, counting the scheduled jobs running
 * on it too (they are never held back: a backfill yields to them, not the other way round).
 */

/**
 * Jobs of one ad account at once, whatever its platform. Each platform meters an account, not our
 * whole app, and says so in its own way; two at once keeps a backfill well inside each while still
 * overlapping one chunk's read with another's write (a new platform's limits are checked against it).
 * - Meta: the Marketing API's per-ad-account business-use-case limit, reported on every answer in
 *   `x-business-use-case-usage` (call count, CPU and time as % of the limit); insights are the heaviest calls.
 * - Google Ads: the developer token's daily operations budget (Basic access: 15,000 a day) and its
 *   requests-per-second per customer (`RESOURCE_TEMPORARILY_EXHAUSTED`); one searchStream is one request.
 * - Microsoft Advertising: calls per minute per user and account (error 117 `CallRateExceeded`), and a
 *   report is submitted, polled and downloaded (three calls and a wait per chunk).
 * - LinkedIn: per-application and per-member daily throttles (429); a chunk is three list calls and one
 *   adAnalytics request per 15,000 elements.
 */
export const ACCOUNT_CONCURRENCY = 2;

/** The ad account a job reads: a backfill's key is `{account}_{first day}`, a scheduled job's the account itself. */
export const accountOfJobKey = (key: string) => /^(.+)_\d{4}-\d{2}-\d{2}$/.exec(key)?.[1] ?? key;

/** One job waiting for its turn: whose it is, which ad account it reads, and how to run it. */
export interface FairJob {
  org: string;
  /** The ad account it reads (`platform:id`): the platform's limit is per account, whoever connected it. */
  lane: string;
  /** Jobs of this account at once (ACCOUNT_CONCURRENCY). */
  limit: number;
  /** Runs the job; `release` gives its slot to the next one before the promise settles (only its recording is left). */
  run: (release: () => void) => Promise<void>;
  /** Called instead of `run` for a job still waiting when the worker stops (its message goes back to the queue). */
  cancel: () => void;
}

export interface FairShare {
  /** Queues a job; it starts when it is its organization's turn and its account has room. */
  push(job: FairJob): void;
  /** Cancels every job still waiting (a stopping worker); later pushes are cancelled at once. */
  close(): void;
  /** Counts a job that is not queued here (a scheduled one) on its account while `work` runs. */
  occupy<T>(lane: string, work: () => Promise<T>): Promise<T>;
  /** Jobs waiting and running. */
  readonly waiting: number;
  readonly running: number;
}

/** A fair share of `concurrency` slots among organizations and ad accounts. */
export function fairShare(concurrency: number): FairShare {
  /** Per organization, its jobs in the order they came. */
  const queues = new Map<string, FairJob[]>();
  /** The organizations with jobs waiting, in turn order; `turn` is whose turn comes next. */
  const ring: string[] = [];
  let turn = 0;
  const onLane = new Map<string, number>();
  let running = 0;
  let waiting = 0;
  let closed = false;

  const enter = (lane: string) => onLane.set(lane, (onLane.get(lane) ?? 0) + 1);
  const leave = (lane: string) => {
    const left = (onLane.get(lane) ?? 1) - 1;
    if (left > 0) onLane.set(lane, left);
    else onLane.delete(lane);
  };

  /**
   * Of an organization's jobs, the oldest of an account with room and the fewest jobs running: its accounts
   * advance together. Taking its oldest jobs instead, the accounts queued first filled the slots and the last
   * one ran alone at the end, on its own account's limit, with slots left empty.
   */
  function nextOf(jobs: FairJob[]): number {
    let best = -1;
    let fewest = Infinity;
    for (const [index, job] of jobs.entries()) {
      const running = onLane.get(job.lane) ?? 0;
      if (running < job.limit && running < fewest) {
        best = index;
        fewest = running;
        if (running === 0) break;
      }
    }
    return best;
  }

  /** The next job: the first organization from `turn` on with a job whose account has room (nextOf). */
  function take(): FairJob | null {
    for (let step = 0; step < ring.length; step++) {
      const index = (turn + step) % ring.length;
      const org = ring[index]!;
      const jobs = queues.get(org)!;
      const at = nextOf(jobs);
      if (at < 0) continue;
      const [job] = jobs.splice(at, 1);
      if (jobs.length === 0) {
        queues.delete(org);
        ring.splice(index, 1);
        turn = ring.length ? index % ring.length : 0;
      } else turn = (index + 1) % ring.length;
      return job!;
    }
    return null;
  }

  function pump() {
    while (running < concurrency) {
      const job = take();
      if (!job) return;
      waiting -= 1;
      running += 1;
      enter(job.lane);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        running -= 1;
        leave(job.lane);
        pump();
      };
      void job
        .run(release)
        .catch(() => undefined)
        .finally(release);
    }
  }

  return {
    push(job) {
      if (closed) return job.cancel();
      const jobs = queues.get(job.org);
      if (jobs) jobs.push(job);
      else {
        queues.set(job.org, [job]);
        // A newcomer has the next turn: a small backfill queued behind a long one starts at once.
        ring.splice(turn, 0, job.org);
      }
      waiting += 1;
      pump();
    },
    close() {
      closed = true;
      const cancelled = [...queues.values()].flat();
      queues.clear();
      ring.length = 0;
      waiting = 0;
      for (const job of cancelled) job.cancel();
    },
    async occupy(lane, work) {
      enter(lane);
      try {
        return await work();
      } finally {
        leave(lane);
        pump();
      }
    },
    get waiting() {
      return waiting;
    },
    get running() {
      return running;
    },
  };
}
