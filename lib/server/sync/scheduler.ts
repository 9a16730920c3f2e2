import type { Connection } from '@/lib/shared/connections/connection';
import { lookbackWindow, nextRunAt } from '@/lib/shared/connections/windows';
import { publishSyncJobs } from '@/lib/server/queue/pubsub';
import { errorFields, labels, log } from '@/lib/server/log';
import * as repo from '@/lib/server/repos/connections';
import * as ledger from '@/lib/server/repos/ledger';

/**
 * The scheduler: on each tick (Cloud Scheduler → Pub/Sub in production, the worker's dev tick
 * locally) it claims every due connection in a transaction — a connection already claimed by another
 * scheduler, or with a run still in progress, is skipped — and publishes one job per account.
 */

const windowOf = (now: Date) => (connection: Connection) => lookbackWindow(connection.lookbackDays, now);
const nextOf = (now: Date) => (connection: Connection) => nextRunAt(connection.schedule, now);

/** Starts a run of a connection now ("Run now", or a due schedule); null when one is in progress. */
export async function startRun(
  orgId: string,
  connectionId: string,
  kind: 'scheduled' | 'manual',
  now = new Date(),
): Promise<string | null> {
  const claim = await ledger.claimRun(orgId, connectionId, { kind, now, window: windowOf(now), nextRunAt: nextOf(now) });
  if (!claim.claimed) return null;
  try {
    await publishSyncJobs(
      claim.jobs.map((job) => ({ org: orgId, connection: connectionId, run: claim.runId, job: job.key, platform: claim.platform })),
      'scheduled',
    );
  } catch (error) {
    // Unpublished jobs would hold the claim until it lapses: end the run now; the next one reads the same days.
    await ledger.abandonRun(orgId, connectionId, claim.runId);
    throw error;
  }
  return claim.runId;
}

/** Claims and starts every due connection; returns how many runs started. */
export async function tick(now = new Date()): Promise<number> {
  const due = await repo.dueConnections(now);
  const started = await Promise.all(
    due.map(({ orgId, id }) =>
      startRun(orgId, id, 'scheduled', now).catch((error) => {
        log.error({ component: 'sync', ...labels({ org: orgId, connection: id }), ...errorFields(error) }, 'could not start a due run');
        return null;
      }),
    ),
  );
  return started.filter(Boolean).length;
}
