/**
 * How much of a run's ledger one write of the run document takes (repos/ledger.ts). Firestore takes 500 writes in a
 * transaction (the chart's days, the run, the connection) and applies 500 field transforms to one document: each
 * attempt counted is one (`jobs.{key}.attempts`), a write that settles jobs adds the run's 4 totals and
 * `finished_at`, and each settled job up to 4 on its account (rows read and written, calls, failed; counted per
 * job, as if every job had its own account). A write over either limit would fail every time it is tried, so a
 * pile of settles (after an outage, or a run of many accounts) goes in several writes instead.
 */
export const SETTLES_PER_WRITE = 100;
export const DAYS_PER_WRITE = 400;
export const ATTEMPTS_PER_WRITE = 100;
export const TRANSFORMS_PER_WRITE = 500;
const RUN_TRANSFORMS = 5;
const ACCOUNT_TRANSFORMS = 4;

/**
 * The settles (in order, each with the chart days it writes) and the attempts one write takes: as many as fit, and
 * one settle at least.
 */
export function planRunWrite(pending: Array<{ days: Iterable<string> }>, attempts: number): { settles: number; attempts: number } {
  const attemptsTaken = Math.min(attempts, ATTEMPTS_PER_WRITE);
  const bySettles = Math.floor((TRANSFORMS_PER_WRITE - RUN_TRANSFORMS - attemptsTaken) / ACCOUNT_TRANSFORMS);
  const most = Math.min(SETTLES_PER_WRITE, bySettles, pending.length);
  const dates = new Set<string>();
  let settles = 0;
  while (settles < most) {
    for (const date of pending[settles]!.days) dates.add(date);
    if (settles > 0 && dates.size > DAYS_PER_WRITE) break;
    settles += 1;
  }
  return { settles, attempts: attemptsTaken };
}

/** The field transforms a write of this plan may apply to the run document at most. */
export const transformsOf = (plan: { settles: number; attempts: number }) =>
  plan.attempts + (plan.settles > 0 ? RUN_TRANSFORMS + ACCOUNT_TRANSFORMS * plan.settles : 0);
