import { pull } from '@/lib/server/queue/pull';
import { parseSyncJob, publishTick, SUBSCRIPTIONS } from '@/lib/server/queue/pubsub';
import type { QueueMessage } from '@/lib/server/queue/message';
import { runSyncJob } from '@/lib/server/sync/runner';
import { tick } from '@/lib/server/sync/scheduler';

/**
 * The sync side of a worker process: the scheduler's ticks, scheduled and manual jobs (several at
 * once) and backfill jobs (one at a time, so a two-year backfill never delays a scheduled run).
 * A job in hand when the process dies comes back once its lease lapses and is run again from its
 * window: nothing is lost, and the writer's replace makes the second write a no-op in effect.
 */

export interface SyncWorkerOptions {
  /** Scheduled and manual jobs run at once. */
  concurrency?: number;
  /** Publishes a tick this often (the dev and test stacks; production has Cloud Scheduler). */
  tickMs?: number;
}

export function startSyncWorker({ concurrency = 4, tickMs }: SyncWorkerOptions = {}) {
  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };

  const runJob = (message: QueueMessage) => {
    const job = parseSyncJob(message.data);
    if (!job) {
      console.error('[sync] dropping a message that is not a sync job', message.id);
      return message.ack();
    }
    track(
      runSyncJob(job)
        .then((verdict) => (verdict === 'ack' ? message.ack() : message.nack(verdict.retryInSeconds)))
        .catch((error) => {
          console.error('[sync] job failed; it will come again', job, error);
          message.nack();
        }),
    );
  };

  const runTick = (message: QueueMessage) => {
    track(
      tick()
        .then(() => message.ack())
        .catch((error) => {
          console.error('[sync] tick failed', error);
          message.nack();
        }),
    );
  };

  const pullers = [
    pull(SUBSCRIPTIONS.syncWorkers, runJob, { batch: concurrency, maxOutstanding: concurrency, ackDeadlineSeconds: 20 }),
    pull(SUBSCRIPTIONS.backfillWorkers, runJob, { batch: 1, maxOutstanding: 1, ackDeadlineSeconds: 20 }),
    pull(SUBSCRIPTIONS.scheduler, runTick, { batch: 10, maxOutstanding: 10, ackDeadlineSeconds: 30 }),
  ];
  const ticking = tickMs
    ? setInterval(() => void publishTick().catch((error) => console.error('[sync] could not publish a tick', error.message)), tickMs)
    : null;
  if (tickMs) void publishTick().catch(() => undefined);

  return {
    async stop() {
      if (ticking) clearInterval(ticking);
      await Promise.all([...pullers.map((puller) => puller.stop()), Promise.allSettled([...inFlight])]);
    },
  };
}
