import type { Connection } from '@/lib/shared/connections/connection';
import type { AdRow } from '@/lib/shared/connections/rows';
import { PLATFORM_LABELS, type AdPlatform, type Platform } from '@/lib/shared/integrations/platforms';
import { connectorFor } from '@/lib/server/connectors/registry';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { ReportRequest, Session, WriteTarget } from '@/lib/server/connectors/types';
import { deadLoginMessage, workWithSession } from '@/lib/server/credentials';
import { DomainError } from '@/lib/server/errors';
import { errorFields, labels, log } from '@/lib/server/log';
import type { SyncJob } from '@/lib/server/queue/pubsub';
import * as repo from '@/lib/server/repos/connections';
import * as runSettlement from '@/lib/server/repos/runSettlement';
import { alertRunSettled } from '@/lib/server/alerts/runs';

/**
 * One sync job: read one account's window from the ad platform, replace that slice in the
 * destination, record the result on the run. At-least-once safe: a job settled already is skipped,
 * and the writer's replace leaves one row per key however often a window is written.
 */

/** Attempts before a failing job is recorded as failed; below the subscriptions' dead-letter bound (20), so every job is settled. */
export const MAX_JOB_ATTEMPTS = Math.min(Number(process.env.SYNC_JOB_ATTEMPTS || 5), 15);

/** Done with the message, or give it back to come again after a delay. */
export type JobVerdict = 'ack' | { retryInSeconds: number };

/**
 * When to try a job again: when the platform said it will answer (a rate limit's retry time), else
 * after 5 s, 10 s, 20 s … (at most 10 minutes, Pub/Sub's longest lease).
 */
export function retryDelaySeconds(error: unknown, attempts: number, now = Date.now()): number {
  if (error instanceof PlatformError && error.retryAt) return Math.min(600, Math.max(1, Math.ceil((error.retryAt.getTime() - now) / 1000)));
  return Math.min(600, 5 * 2 ** (attempts - 1));
}

const clock = (at: Date) => at.toISOString().slice(11, 16);

/** A platform's refusal in the words the run history shows. */
export function describeFailure(error: unknown, platform: string): string {
  if (error instanceof PlatformError) {
    if (error.code === 'rate_limited') {
      return `${platform} rate limit — retrying ${error.retryAt ? `at ${clock(error.retryAt)} UTC` : 'in a minute'}`;
    }
    if (error.code === 'retryable') return `${platform} did not answer (${error.message}) — retrying`;
    return error.message;
  }
  if (error instanceof DomainError) return error.message;
  return 'Something went wrong on our side; the run will be retried.';
}

/** The destination a connection writes to, as the writer needs it. */
export const writeTargetOf = (connection: Connection, settings: Record<string, string>): WriteTarget => ({
  projectId: connection.destination.projectId,
  dataset: connection.destination.dataset ?? undefined,
  table: connection.destination.table ?? undefined,
  residency: settings.residency,
});

/** Reads every page of an account's window (one job's window is bounded: a month at most). */
export async function readWindow(session: Session, platform: AdPlatform, request: ReportRequest): Promise<AdRow[]> {
  const report = connectorFor(platform).report;
  if (!report) throw new DomainError('invalid', `${PLATFORM_LABELS[platform]} cannot report ad performance.`);
  const rows: AdRow[] = [];
  for await (const page of report(session, request)) rows.push(...page);
  return rows;
}

/** Spend, clicks and impressions per day of what was written (the connection page's chart). */
function dailySums(rows: AdRow[]) {
  // The account's currency goes with its spend: the chart never adds different currencies.
  const sums = new Map<string, { spend: number; clicks: number; impressions: number; currency: string }>();
  for (const row of rows) {
    const day = sums.get(row.date) ?? { spend: 0, clicks: 0, impressions: 0, currency: row.currency };
    day.spend = Math.round((day.spend + row.spend) * 100) / 100;
    day.clicks += row.clicks;
    day.impressions += row.impressions;
    sums.set(row.date, day);
  }
  return sums;
}

/**
 * Runs a job. `onWorkDone` is told when the platform work is over and only its recording remains (the
 * run's next write, within about a second): the worker gives the job's slot to the next one then.
 */
export async function runSyncJob(message: SyncJob, onWorkDone: () => void = () => undefined): Promise<JobVerdict> {
  // The job's ledger entry and its connection are read together: one round trip before the platform's.
  const [begun, connectionRead] = await Promise.all([
    runSettlement.beginJob(message.org, message.connection, message.run, message.job),
    repo.getConnection(message.org, message.connection).then(
      (connection) => ({ connection }),
      (error: unknown) => ({ error }),
    ),
  ]);
  if (!begun) return 'ack';
  const { job, attempts } = begun;
  const started = Date.now();
  let calls = 0;
  let rowsRead = 0;
  let platform = 'The platform';
  // Which object the job was using when it failed: a dead login is named in the one sentence.
  let step: { kind: 'source' | 'destination'; id: string; platform: Platform } | null = null;
  const settle = async (
    result: Omit<runSettlement.JobResult, 'durationMs' | 'calls' | 'rowsRead'>,
    days: runSettlement.WrittenDays | null = null,
  ) => {
    const durationMs = Date.now() - started;
    onWorkDone();
    const settlement = await runSettlement.settleJob(
      message.org,
      message.connection,
      message.run,
      message.job,
      { ...result, rowsRead, calls, durationMs },
      days,
    );
    await alertRunSettled(message.org, message.connection, settlement);
    // The worker's context labels the line with the run (sync/worker.ts); given here too for other callers.
    log[result.status === 'done' ? 'info' : 'warn'](
      {
        component: 'sync',
        ...labels({ org: message.org, connection: message.connection, run: message.run }),
        job: message.job,
        status: result.status,
        rowsRead,
        rowsWritten: result.rowsWritten,
        calls,
        durationMs,
        ...(result.error ? { reason: result.error } : {}),
      },
      'sync job settled',
    );
  };
  let settled = false;
  try {
    if ('error' in connectionRead) throw connectionRead.error;
    const { connection } = connectionRead;
    platform = PLATFORM_LABELS[connection.source.platform];
    step = { kind: 'source', id: connection.source.sourceId, platform: connection.source.platform };
    // A token that expired during a long job is refreshed once before the login counts as dead, and a dead
    // login is marked on its object (workWithSession), so its page offers Reconnect (which resumes the connection).
    const rows = await workWithSession(message.org, 'source', connection.source.sourceId, (sourceSession, source) =>
      readWindow(sourceSession, connection.source.platform, {
        account: source.accounts.find((candidate) => candidate.id === job.accountId) ?? { id: job.accountId, name: job.accountId },
        level: connection.level,
        from: job.from,
        to: job.to,
        onCall: () => calls++,
      }),
    );
    rowsRead = rows.length;
    // Deleted while the report was read: the job stops here, before writing anything anywhere.
    if (!(await repo.connectionExists(message.org, message.connection))) return 'ack';
    platform = PLATFORM_LABELS[connection.destination.platform];
    step = { kind: 'destination', id: connection.destination.destinationId, platform: connection.destination.platform };
    const result = await workWithSession(
      message.org,
      'destination',
      connection.destination.destinationId,
      (destinationSession, destination) => {
        const writer = connectorFor(destination.platform).writer;
        if (!writer) throw new DomainError('invalid', `${platform} cannot receive ad performance.`);
        return writer.replace(
          destinationSession,
          writeTargetOf(connection, destination.settings),
          {
            connectionId: connection.id,
            platform: connection.source.platform,
            accountId: job.accountId,
            from: job.from,
            to: job.to,
          },
          rows,
        );
      },
    );
    calls += result.calls;
    const refused = result.failed.length
      ? `${platform} refused ${result.failed.length} row${result.failed.length === 1 ? '' : 's'}: ${result.failed[0]!.message}`
      : null;
    settled = true;
    // The chart's days are written with the job's result, under the connection only if it still exists.
    await settle(
      { status: 'done', rowsWritten: result.written, error: refused },
      rows.length > 0 ? { accountId: job.accountId, days: dailySums(rows) } : null,
    );
    return 'ack';
  } catch (error) {
    // The settle itself failed (Firestore): the message comes again and the job is settled then.
    if (settled) throw error;
    const words = describeFailure(error, platform);
    const code = error instanceof DomainError ? error.code : null;
    if (code === 'not_found') {
      await settle({ status: 'failed', rowsWritten: 0, error: words });
      return 'ack';
    }
    if (code === 'needs_reauth') {
      // Wherever the login was refused (a refresh, the report, the write), workWithSession marked its object; the
      // job says it in the one sentence.
      await settle({ status: 'paused', rowsWritten: 0, error: step ? deadLoginMessage(step.platform) : words });
      return 'ack';
    }
    const transient = code === 'retryable' || code === 'rate_limited' || !(error instanceof DomainError);
    if (transient && attempts < MAX_JOB_ATTEMPTS) {
      const fields = {
        component: 'sync',
        ...labels({ org: message.org, connection: message.connection, run: message.run }),
        job: message.job,
        attempts,
      };
      if (!(error instanceof DomainError)) log.error({ ...fields, ...errorFields(error) }, 'sync job failed; it will be retried');
      else log.warn({ ...fields, code }, 'sync job failed; it will be retried');
      runSettlement.noteJobError(message.org, message.connection, message.run, job, words);
      return { retryInSeconds: retryDelaySeconds(error, attempts) };
    }
    await settle({ status: 'failed', rowsWritten: 0, error: words });
    return 'ack';
  }
}
