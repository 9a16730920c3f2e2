import type { RunAccount, RunDetail } from '@/lib/shared/connections/connection';
import { runDays } from '@/lib/shared/connections/windows';
import * as repo from '@/lib/server/repos/connections';
import * as ledger from '@/lib/server/repos/ledger';

/**
 * One run opened (the run page) and the run history as CSV. Read from the run ledger: a job records its
 * rows, calls and time when it settles, so an account's figures are its jobs' sums.
 */

export async function runDetail(orgId: string, id: string, runId: string): Promise<RunDetail> {
  const connection = await repo.getConnection(orgId, id);
  const { jobs, ...run } = await ledger.getRun(orgId, id, runId);
  const list = Object.values(jobs).sort((a, b) => a.accountId.localeCompare(b.accountId) || a.from.localeCompare(b.from));
  const ids = [...new Set([...Object.keys(run.accounts), ...list.map((job) => job.accountId)])];
  const accounts = ids.map((accountId): RunAccount => {
    const own = list.filter((job) => job.accountId === accountId);
    const totals = run.accounts[accountId];
    return {
      id: accountId,
      rowsRead: totals?.rowsRead ?? 0,
      rowsWritten: totals?.rowsWritten ?? 0,
      calls: totals?.calls ?? 0,
      durationMs: own.reduce((sum, job) => sum + (job.durationMs ?? 0), 0),
      jobs: own.length,
      failed: totals?.failed ?? 0,
      error: totals?.error ?? null,
    };
  });
  const { name, schedule, source } = connection;
  return { connection: { id, name, schedule, source }, run, accounts, jobs: list };
}

/** The most runs one CSV holds (newest first). */
export const RUNS_CSV_LIMIT = 1000;

const CSV_COLUMNS = [
  'run_id',
  'kind',
  'outcome',
  'started_at',
  'finished_at',
  'first_day',
  'last_day',
  'rows_read',
  'rows_written',
  'api_calls',
  'duration_seconds',
  'error',
] as const;

/** A CSV field: quoted when it holds a comma, quote or line break; a leading =, +, - or @ is defused for spreadsheets. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The run history as CSV, newest first: one line per run, its days both ends included as the page shows them. */
export async function runsCsv(orgId: string, id: string): Promise<string> {
  const connection = await repo.getConnection(orgId, id);
  const runs = await ledger.listRunSummaries(orgId, id, RUNS_CSV_LIMIT);
  const lines = runs.map((run) => {
    const days = runDays(run, connection.schedule.timeZone);
    const seconds = run.finishedAt ? Math.round((Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 100) / 10 : null;
    return [
      run.id,
      run.kind,
      run.outcome,
      run.startedAt,
      run.finishedAt,
      days.from,
      days.to,
      run.rowsRead,
      run.rowsWritten,
      run.calls,
      seconds,
      run.error,
    ]
      .map(csvField)
      .join(',');
  });
  return [CSV_COLUMNS.join(','), ...lines].join('\r\n') + '\r\n';
}
