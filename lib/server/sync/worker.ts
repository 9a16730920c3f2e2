import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { errorFields, labels, log, withLogContext } from '@/lib/server/log';
import { pull } from '@/lib/server/queue/pull';
import { parseSyncJob, publishTick, SUBSCRIPTIONS, type SyncJob } from '@/lib/server/queue/pubsub';
import type { QueueMessage } from '@/lib/server/queue/message';
import { getConnection } from '@/lib/server/repos/connections';
import { accountOfJobKey, ACCOUNT_CONCURRENCY, fairShare } from '@/lib/server/sync/fairShare';
import { runSyncJob } from '@/lib/server/sync/runner';
import { tick } from '@/lib/server/sync/scheduler';

/**
 * The sync side of a worker process: the scheduler's ticks, scheduled and manual jobs (`concurrency`
 * at once, from their own subscription) and backfill chunks (`backfillConcurrency` at once, from theirs,
 * shared fairly: organizations take turns and an ad account has at most its platform's few jobs at once,
 * scheduled ones counted; sync/fairShare.ts). Neither kind takes the other's slots, so a two-year
 * backfill never delays a scheduled run. A job in hand when the process dies comes back once its lease
 * lapses and is run again from its window: nothing is lost, and the writer's replace makes the second
 * write a no-op in effect.
 */

export interface SyncWorkerOptions {
  /** Scheduled and manual jobs run at once. */
  concurrency?: number;
  /** Backfill chunks run at once (SYNC_BACKFILL_CONCURRENCY). */
  backfillConcurrency?: number;
  /**
   * Backfill chunks held at most (leased, most of them waiting their turn; SYNC_BACKFILL_HELD): enough
   * that another organization's backfill queued behind a long one is in hand, and so gets its turn.
   */
  backfillHeld?: number;
  /** Publishes a tick this often (the dev and test stacks; production has Cloud Scheduler). */
  tickMs?: number;
}

/** Connections whose platform a worker remembers for messages that do not say it. */
const PLATFORMS_REMEMBERED = 100;

const envNumber = (name: string, fallback: number) => Math.max(1, Number(process.env[name] || fallback) || fallback);

export function startSyncWorker({
  concurrency = 4,
  // 6: three ad accounts at their limit of 2. A chunk mostly waits on the platforms and Firestore, so on 2 cores
  // 6 side by side took a two-year Mixpanel backfill of three accounts from 6.2 s (4 at once) to about 5 (npm run bench).
  backfillConcurrency = envNumber('SYNC_BACKFILL_CONCURRENCY', 6),
  backfillHeld = envNumber('SYNC_BACKFILL_HELD', 100),
  tickMs,
}: SyncWorkerOptions = {}) {
  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    return work;
  };
  const backfills = fairShare(backfillConcurrency);

  /**
   * A job's message says its connection's platform. One published before it did not: the connection is
   * read (a missing one: the job settles it), remembered for the few connections last read, as such
   * messages only come while a backlog from before drains.
   */
  const platforms = new Map<string, Promise<AdPlatform | null>>();
  const platformOf = (job: SyncJob): Promise<AdPlatform | null> => {
    if (job.platform) return Promise.resolve(job.platform);
    const key = `${job.org}/${job.connection}`;
    let known = platforms.get(key);
    if (!known) {
      known = getConnection(job.org, job.connection).then(
        (connection) => connection.source.platform,
        () => null,
      );
      platforms.set(key, known);
      if (platforms.size > PLATFORMS_REMEMBERED) platforms.delete(platforms.keys().next().value!);
      // Forgotten on a miss, so a connection read while Firestore was away is read again.
      void known.then((platform) => platform ?? platforms.delete(key));
    }
    return known;
  };
  const laneOf = (platform: AdPlatform | null, job: SyncJob) => `${platform ?? 'unknown'}:${accountOfJobKey(job.job)}`;

  // Every line a job logs (its platforms' too) carries its run's labels.
  const settle = (message: QueueMessage, job: SyncJob, onWorkDone?: () => void) =>
    withLogContext({ component: 'sync', ...labels({ org: job.org, connection: job.connection, run: job.run }), job: job.job }, () =>
      runSyncJob(job, onWorkDone)
        .then((verdict) => (verdict === 'ack' ? message.ack() : message.nack(verdict.retryInSeconds)))
        .catch((error) => {
          log.error(errorFields(error), 'sync job failed; it will come again');
          message.nack();
        }),
    );

  const parse = (message: QueueMessage) => {
    const job = parseSyncJob(message.data);
    if (!job) {
      log.error({ component: 'sync', messageId: message.id }, 'message that is not a sync job dropped');
      message.ack();
    }
    return job;
  };

  // Scheduled and manual jobs start at once (their subscription holds `concurrency`); they count on their account.
  const runJob = (message: QueueMessage) => {
    const job = parse(message);
    if (!job) return;
    track(platformOf(job).then((platform) => backfills.occupy(laneOf(platform, job), () => settle(message, job))));
  };

  const runBackfillJob = (message: QueueMessage) => {
    const job = parse(message);
    if (!job) return;
    track(
      platformOf(job).then(
        (platform) =>
          new Promise<void>((resolve) =>
            backfills.push({
              org: job.org,
              lane: laneOf(platform, job),
              limit: platform ? ACCOUNT_CONCURRENCY : 1,
              run: (release) => settle(message, job, release).finally(resolve),
              cancel: () => {
                message.nack();
                resolve();
              },
            }),
          ),
      ),
    );
  };

  const runTick = (message: QueueMessage) => {
    track(
      tick()
        .then(() => message.ack())
        .catch((error) => {
          log.error({ component: 'sync', ...errorFields(error) }, 'scheduler tick failed');
          message.nack();
        }),
    );
  };

  const pullers = [
    pull(SUBSCRIPTIONS.syncWorkers, runJob, { batch: concurrency, maxOutstanding: concurrency, ackDeadlineSeconds: 20 }),
    pull(SUBSCRIPTIONS.backfillWorkers, runBackfillJob, { batch: backfillHeld, maxOutstanding: backfillHeld, ackDeadlineSeconds: 20 }),
    pull(SUBSCRIPTIONS.scheduler, runTick, { batch: 10, maxOutstanding: 10, ackDeadlineSeconds: 30 }),
  ];
  const ticking = tickMs
    ? setInterval(
        () =>
          void publishTick().catch((error) =>
            log.error({ component: 'sync', ...errorFields(error) }, 'could not publish a scheduler tick'),
          ),
        tickMs,
      )
    : null;
  if (tickMs) void publishTick().catch(() => undefined);

  return {
    async stop() {
      if (ticking) clearInterval(ticking);
      // Chunks waiting for their turn go back to the queue at once; those running are finished.
      backfills.close();
      await Promise.all([...pullers.map((puller) => puller.stop()), Promise.allSettled([...inFlight])]);
    },
  };
}
