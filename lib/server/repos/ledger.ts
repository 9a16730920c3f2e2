import { FieldValue, Timestamp, type DocumentSnapshot, type Transaction } from 'firebase-admin/firestore';
import type { Connection, Run, RunJob, RunKind } from '@/lib/shared/connections/connection';
import type { Window } from '@/lib/shared/connections/windows';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { isoOrNull, toConnection } from '@/lib/server/repos/connections';
import { iso, notFound } from '@/lib/server/repos/integrations';

/**
 * The run ledger of connections: `connections/{id}/runs/{runId}`. A run keeps its jobs (one per
 * account × window) in its own document, so the page's listener sees progress in one read and a worker
 * finishes a job in one transaction. Claiming a run moves the connection's `next_run_at` in the same
 * transaction.
 */

const organization = (orgId: string) => adminDb().collection('organizations').doc(orgId);
export const connections = (orgId: string) => organization(orgId).collection('connections');
export const runs = (orgId: string, id: string) => connections(orgId).doc(id).collection('runs');
export const daysOf = (orgId: string, id: string) => connections(orgId).doc(id).collection('days');

const emptyJob = (accountId: string, window: Window, key: string): RunJob => ({
  key,
  accountId,
  from: window.from,
  to: window.to,
  status: 'pending',
  rowsRead: 0,
  rowsWritten: 0,
  calls: 0,
  durationMs: 0,
  attempts: 0,
  error: null,
});

/**
 * A run still counts as in progress for this long; after that a new one may start and the old one is
 * recorded as abandoned. Longer than a slow run can take (retries up to 10 minutes apart, Meta's
 * async reports, Microsoft's report polling).
 */
export const RUN_CLAIM_MS = 2 * 3_600_000;

const ABANDONED = 'Abandoned: the run did not finish (its jobs were lost). The next run reads the same days.';

export type ClaimResult =
  | { claimed: true; runId: string; jobs: RunJob[]; platform: AdPlatform }
  | { claimed: false; reason: 'running' | 'not_due' | 'paused' | 'needs_reauth' | 'missing' };

/**
 * Starts a run in a transaction: refused while another run (scheduled or manual) of the connection
 * is in progress, or — for the scheduler — when it is no longer due (another scheduler took it).
 * Records the run with its jobs and moves next_run_at on.
 */
export async function claimRun(
  orgId: string,
  id: string,
  options: {
    kind: 'scheduled' | 'manual';
    window: (connection: Connection) => Window;
    now: Date;
    nextRunAt: (connection: Connection) => Date;
  },
): Promise<ClaimResult> {
  const ref = connections(orgId).doc(id);
  return adminDb().runTransaction(async (transaction): Promise<ClaimResult> => {
    const snap = await transaction.get(ref);
    if (!snap.exists) return { claimed: false, reason: 'missing' };
    const connection = toConnection(snap);
    const due = connection.nextRunAt !== null && Date.parse(connection.nextRunAt) <= options.now.getTime();
    if (options.kind === 'scheduled' && !due) return { claimed: false, reason: 'not_due' };
    const skip = (reason: 'paused' | 'needs_reauth' | 'running'): ClaimResult => {
      if (options.kind === 'scheduled') transaction.update(ref, { next_run_at: Timestamp.fromDate(options.nextRunAt(connection)) });
      return { claimed: false, reason };
    };
    if (options.kind === 'scheduled' && connection.status === 'paused') return skip('paused');
    // A dead login makes no runs until Reconnect (which makes the connection due at once).
    const objects = await Promise.all([
      transaction.get(organization(orgId).collection('sources').doc(connection.source.sourceId)),
      transaction.get(organization(orgId).collection('destinations').doc(connection.destination.destinationId)),
    ]);
    if (options.kind === 'scheduled' && objects.some((object) => object.get('status') === 'needs_reauth')) return skip('needs_reauth');
    const since = snap.get('running_since') as Timestamp | null | undefined;
    if (connection.runningRunId && since && options.now.getTime() - since.toMillis() < RUN_CLAIM_MS) return skip('running');
    if (connection.runningRunId) {
      const stale = await transaction.get(runs(orgId, id).doc(connection.runningRunId));
      if (stale.exists && stale.get('outcome') === 'running') {
        transaction.update(stale.ref, { outcome: 'failed', finished_at: FieldValue.serverTimestamp(), error: ABANDONED });
      }
    }
    const runRef = runs(orgId, id).doc();
    const window = options.window(connection);
    const jobs = connection.source.accounts.map((account) => emptyJob(account.id, window, account.id));
    transaction.set(runRef, newRun(options.kind, window, jobs, connection));
    transaction.update(ref, {
      running_run_id: runRef.id,
      running_since: Timestamp.fromDate(options.now),
      ...(options.kind === 'scheduled' && { next_run_at: Timestamp.fromDate(options.nextRunAt(connection)) }),
      // "Run now" waits a while after the last one (runNow reads this).
      ...(options.kind === 'manual' && { manual_run_at: Timestamp.fromDate(options.now) }),
    });
    return { claimed: true, runId: runRef.id, jobs, platform: connection.source.platform };
  });
}

/** When the connection last started a run on demand ("Run now"), or null. */
export async function lastManualRunAt(orgId: string, id: string): Promise<Date | null> {
  const at = (await connections(orgId).doc(id).get()).get('manual_run_at') as Timestamp | undefined;
  return at ? at.toDate() : null;
}

function newRun(kind: RunKind, window: Window, jobs: RunJob[], connection: Connection) {
  return {
    kind,
    outcome: 'running',
    from: window.from,
    to: window.to,
    started_at: FieldValue.serverTimestamp(),
    finished_at: null,
    jobs_total: jobs.length,
    jobs_done: 0,
    rows_read: 0,
    rows_written: 0,
    calls: 0,
    accounts: Object.fromEntries(
      connection.source.accounts.map((account) => [
        account.id,
        { name: account.name, rows_read: 0, rows_written: 0, calls: 0, failed: 0, error: null },
      ]),
    ),
    jobs: Object.fromEntries(jobs.map((job) => [job.key, job])),
    error: null,
  };
}

/** Ends a run whose jobs could not be published (the queue refused): nothing will finish it otherwise. */
export async function abandonRun(orgId: string, id: string, runId: string): Promise<void> {
  const connectionRef = connections(orgId).doc(id);
  await adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(connectionRef);
    transaction.update(runs(orgId, id).doc(runId), { outcome: 'failed', finished_at: FieldValue.serverTimestamp(), error: ABANDONED });
    if (snap.get('running_run_id') === runId) transaction.update(connectionRef, { running_run_id: null, running_since: null });
  });
}

/** Starts a backfill run (refused while one is in progress): one job per account and chunk. */
export async function startBackfillRun(
  orgId: string,
  id: string,
  window: Window,
  chunks: Window[],
): Promise<{ runId: string; jobs: RunJob[] }> {
  const ref = connections(orgId).doc(id);
  return adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(ref);
    if (!snap.exists) throw notFound('Connection');
    const connection = toConnection(snap);
    if (connection.backfillRunId) {
      const current = await transaction.get(runs(orgId, id).doc(connection.backfillRunId));
      if (current.exists && current.get('outcome') === 'running') throw new BackfillInProgress();
    }
    const runRef = runs(orgId, id).doc();
    const jobs = connection.source.accounts.flatMap((account) =>
      chunks.map((chunk) => emptyJob(account.id, chunk, `${account.id}_${chunk.from}`)),
    );
    transaction.set(runRef, newRun('backfill', window, jobs, connection));
    transaction.update(ref, { backfill_run_id: runRef.id });
    return { runId: runRef.id, jobs };
  });
}

export class BackfillInProgress extends Error {}

export function toRun(snap: DocumentSnapshot): Run & { jobs: Record<string, RunJob> } {
  const accounts = (snap.get('accounts') ?? {}) as Record<
    string,
    { rows_read: number; rows_written: number; calls: number; failed: number; error: string | null }
  >;
  return {
    id: snap.id,
    kind: snap.get('kind'),
    outcome: snap.get('outcome'),
    from: snap.get('from'),
    to: snap.get('to'),
    startedAt: iso(snap.get('started_at')),
    finishedAt: isoOrNull(snap.get('finished_at')),
    jobsTotal: snap.get('jobs_total'),
    jobsDone: snap.get('jobs_done'),
    rowsRead: snap.get('rows_read'),
    rowsWritten: snap.get('rows_written'),
    calls: snap.get('calls'),
    accounts: Object.fromEntries(
      Object.entries(accounts).map(([accountId, value]) => [
        accountId,
        { rowsRead: value.rows_read, rowsWritten: value.rows_written, calls: value.calls, failed: value.failed, error: value.error },
      ]),
    ),
    error: snap.get('error') ?? null,
    jobs: (snap.get('jobs') ?? {}) as Record<string, RunJob>,
  };
}

function omitJobs(run: Run & { jobs: Record<string, RunJob> }): Run {
  const copy: Partial<typeof run> = { ...run };
  delete copy.jobs;
  return copy as Run;
}

export async function listRuns(orgId: string, id: string, limit = 30): Promise<Run[]> {
  const snapshot = await runs(orgId, id).orderBy('started_at', 'desc').limit(limit).get();
  // Without the jobs: a backfill's can number hundreds, and the history shows runs and accounts.
  return snapshot.docs.map((doc) => omitJobs(toRun(doc)));
}

/** A run without its accounts' and jobs' figures (what the CSV export says of it). */
export type RunSummary = Omit<Run, 'accounts'>;

/** Up to `limit` runs, newest first, read without their accounts and jobs (the CSV export: many runs, no backfill's hundreds of jobs). */
export async function listRunSummaries(orgId: string, id: string, limit: number): Promise<RunSummary[]> {
  const snapshot = await runs(orgId, id)
    .orderBy('started_at', 'desc')
    .limit(limit)
    .select(
      'kind',
      'outcome',
      'from',
      'to',
      'started_at',
      'finished_at',
      'jobs_total',
      'jobs_done',
      'rows_read',
      'rows_written',
      'calls',
      'error',
    )
    .get();
  return snapshot.docs.map((doc) => {
    const summary: Partial<Run> = omitJobs(toRun(doc));
    delete summary.accounts;
    return summary as RunSummary;
  });
}

export async function getRun(orgId: string, id: string, runId: string): Promise<Run & { jobs: Record<string, RunJob> }> {
  const snap = await runs(orgId, id).doc(runId).get();
  if (!snap.exists) throw notFound('Run');
  return toRun(snap);
}

/** Stops a backfill: its pending jobs are cancelled (a worker holding one finds the run over and skips it). */
export async function cancelRun(orgId: string, id: string, runId: string): Promise<void> {
  const ref = runs(orgId, id).doc(runId);
  await adminDb().runTransaction(async (transaction: Transaction) => {
    const snap = await transaction.get(ref);
    if (!snap.exists) throw notFound('Run');
    // A backfill waiting for Reconnect may be cancelled too.
    if (snap.get('outcome') !== 'running' && snap.get('outcome') !== 'needs_reauth') return;
    const jobs = (snap.get('jobs') ?? {}) as Record<string, RunJob>;
    const pending = Object.values(jobs).filter((job) => job.status === 'pending' || job.status === 'paused');
    transaction.update(ref, {
      outcome: 'cancelled',
      finished_at: FieldValue.serverTimestamp(),
      ...Object.fromEntries(pending.map((job) => [`jobs.${job.key}.status`, 'cancelled'])),
    });
  });
}

/** The pending jobs of a run (a backfill resumed after Reconnect republishes them). */
export async function pendingJobs(orgId: string, id: string, runId: string): Promise<RunJob[]> {
  const run = await getRun(orgId, id, runId);
  return Object.values(run.jobs).filter((job) => job.status === 'pending');
}

export async function reopenPausedJobs(orgId: string, id: string, runId: string): Promise<RunJob[]> {
  const ref = runs(orgId, id).doc(runId);
  return adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(ref);
    // Reconnected while the run still goes on (its other chunks failing fast) or after it ended paused.
    const outcome = snap.get('outcome');
    if (!snap.exists || (outcome !== 'needs_reauth' && outcome !== 'running')) return [];
    const jobs = Object.values((snap.get('jobs') ?? {}) as Record<string, RunJob>).filter((job) => job.status === 'paused');
    if (jobs.length === 0) return [];
    transaction.update(ref, {
      outcome: 'running',
      finished_at: null,
      error: null,
      jobs_done: FieldValue.increment(-jobs.length),
      ...Object.fromEntries(
        jobs.flatMap((job) => [
          [`jobs.${job.key}.status`, 'pending'],
          [`jobs.${job.key}.error`, null],
        ]),
      ),
    });
    return jobs.map((job) => ({ ...job, status: 'pending' as const, error: null }));
  });
}
