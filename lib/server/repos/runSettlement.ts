import { FieldPath, FieldValue, Timestamp } from 'firebase-admin/firestore';
import type { RunJob, RunKind, RunOutcome } from '@/lib/shared/connections/connection';

import { adminDb } from '@/lib/server/firebaseAdmin';
import { planRunWrite } from '@/lib/server/repos/runWritePlan';
import { daysOf, toRun, connections, runs } from '@/lib/server/repos/ledger';

/**
 * How a run's jobs are begun and settled (the other half of ledger.ts): attempts, outcomes, rows and notes
 * are gathered per run in this process and written to the run's document at most once per
 * RUN_WRITE_INTERVAL_MS, with the days each job wrote; the run's outcome follows from its jobs.
 */

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

export function ledgerOf(orgId: string, id: string, runId: string): RunLedger {
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

export function scheduleWrite(ledger: RunLedger) {
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
