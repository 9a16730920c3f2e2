import { FieldPath, FieldValue, Timestamp, type DocumentSnapshot, type Transaction } from 'firebase-admin/firestore';
import type { Connection, Run, RunJob, RunKind, RunOutcome } from '@/lib/shared/connections/connection';
import type { Window } from '@/lib/shared/connections/windows';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { isoOrNull, toConnection } from '@/lib/server/repos/connections';
import { iso, notFound } from '@/lib/server/repos/integrations';
import { planRunWrite } from '@/lib/server/repos/runWritePlan';

/**
 * The run ledger of connections: `connections/{id}/runs/{runId}`. A run keeps its jobs (one per
 * account × window) in its own document, so the page's listener sees progress in one read and a worker
 * finishes a job in one transaction. Claiming a run moves the connection's `next_run_at` in the same
 * transaction.
 */

const organization = (orgId: string) => adminDb().collection('organizations').doc(orgId);
const connections = (orgId: string) => organization(orgId).collection('connections');
const runs = (orgId: string, id: string) => connections(orgId).doc(id).collection('runs');
const daysOf = (orgId: string, id: string) => connections(orgId).doc(id).collection('days');

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

function toRun(snap: DocumentSnapshot): Run & { jobs: Record<string, RunJob> } {
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

/**
 * A job about to run; null when it is settled already (a redelivered message) or its run is over. The
 * attempt is counted with the run's next write (see settleJob): one read here, no write of its own.
 */
export async function beginJob(orgId: string, id: string, runId: string, key: string): Promise<{ job: RunJob; attempts: number } | null> {
  // Only the run's outcome and this job: a backfill's document holds hundreds of jobs (up to about 1 MiB).
  const [snap] = await adminDb().getAll(runs(orgId, id).doc(runId), { fieldMask: ['outcome', new FieldPath('jobs', key)] });
  if (!snap?.exists) return null;
  const job = snap.get(new FieldPath('jobs', key)) as RunJob | undefined;
  if (!job || job.status !== 'pending' || snap.get('outcome') === 'cancelled') return null;
  const pending = ledgerOf(orgId, id, runId);
  pending.attempts.set(key, (pending.attempts.get(key) ?? 0) + 1);
  scheduleWrite(pending);
  // This process's attempts not yet in the document count too: retries a second apart must still run out.
  return { job, attempts: job.attempts + pending.attempts.get(key)! + (pending.writingAttempts.get(key) ?? 0) };
}

export interface JobResult {
  status: 'done' | 'failed' | 'paused';
  rowsRead: number;
  rowsWritten: number;
  calls: number;
  durationMs: number;
  error: string | null;
}

/** What a job wrote per day: spend (in the account's currency), clicks, impressions. */
export type DayFigures = { spend: number; clicks: number; impressions: number; currency?: string };
export type WrittenDays = { accountId: string; days: Map<string, DayFigures> };

/** What finishing a job did to its run: finished it (with which outcome), or not yet. */
export type JobSettlement = { finished: false } | { finished: true; outcome: RunOutcome; kind: RunKind };

/**
 * The run document is written at most once per RUN_WRITE_INTERVAL_MS (Firestore sustains about one write
 * a second on a document): the jobs of a run settled meanwhile in this process, their attempts and their
 * chart days go in one transaction. A job's settle resolves once that transaction committed, so a message
 * is acknowledged only after its outcome is recorded.
 */
export const RUN_WRITE_INTERVAL_MS = Number(process.env.SYNC_RUN_WRITE_INTERVAL_MS || 1000);

interface PendingSettle {
  key: string;
  result: JobResult;
  days: WrittenDays | null;
  resolve: (settlement: JobSettlement) => void;
  reject: (error: unknown) => void;
}

interface JobNote {
  accountId: string;
  error: string;
}

interface RunLedger {
  orgId: string;
  id: string;
  runId: string;
  attempts: Map<string, number>;
  /** The attempts of the write under way (counted until it commits). */
  writingAttempts: Map<string, number>;
  /** Why jobs will be tried again (noteJobError), by job key: the latest note of each. */
  notes: Map<string, JobNote>;
  settles: PendingSettle[];
  writing: boolean;
  timer: ReturnType<typeof setTimeout> | null;
  lastWrite: number;
}

const ledgers = new Map<string, RunLedger>();

function ledgerOf(orgId: string, id: string, runId: string): RunLedger {
  const key = `${orgId}/${id}/${runId}`;
  let ledger = ledgers.get(key);
  if (!ledger) {
    // Kept a while after its last write (the next one still waits its interval), then forgotten.
    const idle = Date.now() - 10 * RUN_WRITE_INTERVAL_MS;
    for (const [other, candidate] of ledgers) {
      if (!candidate.writing && !candidate.timer && candidate.lastWrite < idle) ledgers.delete(other);
    }
    ledger = {
      orgId,
      id,
      runId,
      attempts: new Map(),
      writingAttempts: new Map(),
      notes: new Map(),
      settles: [],
      writing: false,
      timer: null,
      lastWrite: 0,
    };
    ledgers.set(key, ledger);
  }
  return ledger;
}

function scheduleWrite(ledger: RunLedger) {
  if (ledger.writing || ledger.timer) return;
  const wait = Math.max(0, ledger.lastWrite + RUN_WRITE_INTERVAL_MS - Date.now());
  ledger.timer = setTimeout(() => {
    ledger.timer = null;
    void writeLedger(ledger);
  }, wait);
}

async function writeLedger(ledger: RunLedger) {
  // As many as fit (runWritePlan.ts): a scheduled run's jobs share their days, a backfill's chunks are a month each.
  const plan = planRunWrite(
    ledger.settles.map((settle) => ({ days: settle.days?.days.keys() ?? [] })),
    ledger.attempts.size,
  );
  const settles = ledger.settles.splice(0, plan.settles);
  const attempts = new Map([...ledger.attempts].slice(0, plan.attempts));
  for (const key of attempts.keys()) ledger.attempts.delete(key);
  ledger.writingAttempts = attempts;
  const notes = ledger.notes;
  ledger.notes = new Map();
  ledger.writing = true;
  try {
    const settlements = await writeRun(ledger, attempts, notes, settles);
    settles.forEach((settle, index) => settle.resolve(settlements[index]!));
  } catch (error) {
    // Nothing was recorded: the jobs' messages come again and settle then; the attempts go back to be
    // written next time (dropped, a job failing with Firestore would never run out of attempts).
    for (const [key, count] of attempts) ledger.attempts.set(key, (ledger.attempts.get(key) ?? 0) + count);
    // A note made since is newer than the one that was not written.
    for (const [key, note] of notes) if (!ledger.notes.has(key)) ledger.notes.set(key, note);
    for (const settle of settles) settle.reject(error);
  } finally {
    ledger.writing = false;
    ledger.writingAttempts = new Map();
    ledger.lastWrite = Date.now();
    if (ledger.settles.length || ledger.attempts.size || ledger.notes.size) scheduleWrite(ledger);
  }
}

/**
 * Records a job's result once (a redelivered job finds it settled and changes nothing), adds its
 * numbers to the run and its account, writes the chart's days (only while the connection exists: a job
 * still running when it is deleted leaves nothing behind), and when it was the run's last job, finishes
 * the run and the connection's record of it. Resolves once recorded (within about RUN_WRITE_INTERVAL_MS).
 */
export function settleJob(
  orgId: string,
  id: string,
  runId: string,
  key: string,
  result: JobResult,
  days: WrittenDays | null = null,
): Promise<JobSettlement> {
  const ledger = ledgerOf(orgId, id, runId);
  return new Promise((resolve, reject) => {
    ledger.settles.push({ key, result, days, resolve, reject });
    scheduleWrite(ledger);
  });
}

type Totals = { rows_read: number; rows_written: number; calls: number };

/** One transaction: the attempts begun, the retries noted and the jobs settled since the last write of the run. */
async function writeRun(
  ledger: RunLedger,
  attempts: Map<string, number>,
  notes: Map<string, JobNote>,
  settles: PendingSettle[],
): Promise<JobSettlement[]> {
  const { orgId, id, runId } = ledger;
  const ref = runs(orgId, id).doc(runId);
  const connectionRef = connections(orgId).doc(id);
  return adminDb().runTransaction(async (transaction): Promise<JobSettlement[]> => {
    const [snap, connectionSnap] = await Promise.all([transaction.get(ref), transaction.get(connectionRef)]);
    if (!snap.exists) return settles.map(() => ({ finished: false }));
    const run = toRun(snap);
    const jobs = { ...run.jobs };
    const update: Record<string, unknown> = {};
    const totals: Totals = { rows_read: 0, rows_written: 0, calls: 0 };
    const accounts = new Map<string, Totals & { failed: number; error?: string | null }>();
    const written = new Map<string, Record<string, DayFigures>>();
    let settled = 0;
    let lastSettled = -1;
    const answers: JobSettlement[] = settles.map(() => ({ finished: false }));
    for (const [key, count] of attempts) if (jobs[key]) update[`jobs.${key}.attempts`] = FieldValue.increment(count);
    for (const [index, { key, result, days }] of settles.entries()) {
      const job = jobs[key];
      if (!job || job.status !== 'pending') continue;
      jobs[key] = { ...job, ...result };
      settled += 1;
      lastSettled = index;
      // A paused job is done again after Reconnect: it adds nothing now, so nothing is counted twice.
      const counted = result.status === 'paused' ? { ...result, rowsRead: 0, rowsWritten: 0, calls: 0 } : result;
      Object.assign(update, {
        [`jobs.${key}.status`]: result.status,
        [`jobs.${key}.rowsRead`]: result.rowsRead,
        [`jobs.${key}.rowsWritten`]: result.rowsWritten,
        [`jobs.${key}.calls`]: result.calls,
        [`jobs.${key}.durationMs`]: result.durationMs,
        [`jobs.${key}.error`]: result.error,
      });
      totals.rows_read += counted.rowsRead;
      totals.rows_written += counted.rowsWritten;
      totals.calls += counted.calls;
      const account = accounts.get(job.accountId) ?? { rows_read: 0, rows_written: 0, calls: 0, failed: 0 };
      account.rows_read += counted.rowsRead;
      account.rows_written += counted.rowsWritten;
      account.calls += counted.calls;
      if (result.status === 'failed') account.failed += 1;
      if (result.status !== 'done') account.error = result.error;
      // A retry that passed clears the note it left, unless another job of the account failed for good.
      else if (!run.accounts[job.accountId]?.failed && !account.failed) account.error = result.error;
      accounts.set(job.accountId, account);
      if (days && connectionSnap.exists) {
        for (const [date, figures] of days.days) {
          written.set(date, { ...written.get(date), [days.accountId]: figures });
        }
      }
    }
    // A note is for a job still waiting for its next attempt (one settled since has said its last word);
    // on the account too: the run history shows it meanwhile.
    for (const [key, note] of notes) {
      if (jobs[key]?.status !== 'pending') continue;
      update[`jobs.${key}.error`] = note.error;
      update[`accounts.${note.accountId}.error`] = note.error;
    }
    // One write per day for all the accounts settled together (a backfill's accounts read the same months at once).
    for (const [date, accountsOfDay] of written)
      transaction.set(daysOf(orgId, id).doc(date), { date, accounts: accountsOfDay }, { merge: true });
    if (settled === 0 && Object.keys(update).length === 0) return answers;
    if (settled > 0) {
      Object.assign(update, {
        jobs_done: FieldValue.increment(settled),
        rows_read: FieldValue.increment(totals.rows_read),
        rows_written: FieldValue.increment(totals.rows_written),
        calls: FieldValue.increment(totals.calls),
      });
      for (const [accountId, account] of accounts) {
        const path = `accounts.${accountId}`;
        Object.assign(update, {
          [`${path}.rows_read`]: FieldValue.increment(account.rows_read),
          [`${path}.rows_written`]: FieldValue.increment(account.rows_written),
          [`${path}.calls`]: FieldValue.increment(account.calls),
          ...(account.failed > 0 && { [`${path}.failed`]: FieldValue.increment(account.failed) }),
          ...(account.error !== undefined && { [`${path}.error`]: account.error }),
        });
      }
    }
    const done = Object.values(jobs).filter((candidate) => candidate.status !== 'pending');
    if (settled === 0 || done.length < run.jobsTotal || run.outcome !== 'running') {
      transaction.update(ref, update);
      return answers;
    }
    const outcome = outcomeOf(Object.values(jobs));
    // A run paused for a dead login says so, whichever of its jobs failed first for another reason.
    const errors = Object.values(jobs).filter((candidate) =>
      outcome === 'needs_reauth' ? candidate.status === 'paused' && candidate.error : candidate.error,
    );
    transaction.update(ref, { ...update, outcome, finished_at: FieldValue.serverTimestamp(), error: errors[0]?.error ?? null });
    if (connectionSnap.exists) {
      const current = connectionSnap.get('running_run_id') === runId;
      // A connection the user paused stays paused, whatever the run's outcome.
      const paused = connectionSnap.get('status') === 'paused';
      const status = paused ? 'paused' : outcome === 'needs_reauth' ? 'needs_reauth' : outcome === 'failed' ? 'failing' : 'active';
      transaction.update(connectionRef, {
        last_run: { id: runId, kind: run.kind, outcome, at: Timestamp.now() },
        status,
        status_reason: outcome === 'succeeded' ? null : (errors[0]?.error ?? null),
        ...(current && { running_run_id: null, running_since: null }),
      });
    }
    // The run is finished by the last of these jobs to settle.
    answers[lastSettled] = { finished: true, outcome, kind: run.kind };
    return answers;
  });
}

function outcomeOf(jobs: RunJob[]): RunOutcome {
  if (jobs.some((job) => job.status === 'paused')) return 'needs_reauth';
  const failed = jobs.filter((job) => job.status === 'failed').length;
  if (failed === 0) return 'succeeded';
  return failed === jobs.length ? 'failed' : 'partial';
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

/**
 * Notes why a job will be tried again ("Meta rate limit — retrying at 14:05"), without settling it. Written
 * with the run's next write (at most once per RUN_WRITE_INTERVAL_MS, however many chunks retry at once);
 * a note lost with its write is only a note: the job's next attempt notes again or settles.
 */
export function noteJobError(orgId: string, id: string, runId: string, job: Pick<RunJob, 'key' | 'accountId'>, error: string): void {
  const ledger = ledgerOf(orgId, id, runId);
  ledger.notes.set(job.key, { accountId: job.accountId, error });
  scheduleWrite(ledger);
}

/**
 * Reopens the jobs a dead login paused (after Reconnect): the run is running again and the jobs
 * pending; returns them for publishing. Nothing when the run is not waiting for a login.
 */
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
