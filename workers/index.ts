/**
 * `npm run worker`: the data plane's worker, both directions in one process.
 *
 * Conversions: pulls conversion events from Pub/Sub
 * (PUBSUB_EMULATOR_HOST locally), delivers them in batches through the connectors, one lane per
 * destination (a platform that hangs holds only its own), and records each platform call; its counters
 * are summed and written about once a second (router.ts, repos/deliveryCounters.ts). It also polls the payment accounts that feed conversions (every PAYMENTS_POLL_MS,
 * 20 s by default) and publishes their new payments. Stateless: run as many as the load needs on
 * the one subscription; a lease in Firestore keeps two from polling one account at once.
 *
 * Warehouse conversions: every WAREHOUSE_POLL_MS (30 s by default) it reads the BigQuery and
 * Mixpanel conversions whose schedule is due (or Read now), from their cursors, and publishes their
 * new rows as conversion events; the same kind of lease keeps two workers from reading one at once.
 *
 * Connections: claims due connections on each tick (SYNC_TICK_MS locally; Cloud Scheduler publishes
 * ticks in production) and runs their jobs, SYNC_CONCURRENCY at once, backfills one at a time.
 *
 * Counted by the platform: every RECONCILE_POLL_MS (an hour by default) it reads, per organization
 * (leased), what Meta, Google and Microsoft report they received and attributed of its conversions.
 *
 * Dead letters: every DEAD_LETTER_POLL_MS (60 s by default) it stores what the dead-letter subscriptions
 * hold in Firestore, where they are counted (`npm run dead-letters`, /api/admin/health) and replayed.
 */
import { startPaymentsPoller } from '@/lib/server/delivery/payments';
import { startReconcilePoller } from '@/lib/server/counted/reconcile';
import { startWarehousePoller } from '@/lib/server/delivery/warehouse';
import { createConversionRouter, WORKER_MAX_EVENTS_DEFAULT } from '@/lib/server/delivery/router';
import { pull } from '@/lib/server/queue/pull';
import { startDeadLetterReader } from '@/lib/server/queue/deadLetters';
import { ensureTopology, EVENTS_PER_MESSAGE, eventsInMessage, SUBSCRIPTIONS } from '@/lib/server/queue/pubsub';
import { startSyncWorker } from '@/lib/server/sync/worker';
import { assertServerConfiguration } from '@/lib/server/env';
import { errorFields, log } from '@/lib/server/log';

async function main() {
  // A malformed variable stops the worker here, named, instead of becoming a silent default below.
  assertServerConfiguration();
  await ensureTopology();
  const router = createConversionRouter();
  // Enough events in hand to fill the largest platform batch (Data Manager: 2,000) while others are sent.
  const puller = pull(SUBSCRIPTIONS.delivery, router.handle, {
    maxOutstanding: Number(process.env.WORKER_MAX_EVENTS || WORKER_MAX_EVENTS_DEFAULT),
    weigh: eventsInMessage,
    maxWeight: EVENTS_PER_MESSAGE,
  });
  log.info(`delivering conversions from ${SUBSCRIPTIONS.delivery}`);
  const intervalMs = Number(process.env.PAYMENTS_POLL_MS || 20_000);
  const poller = startPaymentsPoller({ intervalMs });
  log.info(`reading new payments every ${intervalMs / 1000} s`);
  const warehouseMs = Number(process.env.WAREHOUSE_POLL_MS || 30_000);
  const warehouse = startWarehousePoller({
    intervalMs: warehouseMs,
    leaseMs: Number(process.env.WAREHOUSE_LEASE_MS || 5 * 60_000),
    pageRows: Number(process.env.WAREHOUSE_PAGE_ROWS || 0) || undefined,
  });
  log.info(`reading due BigQuery and Mixpanel conversions every ${warehouseMs / 1000} s`);
  const reconcileMs = Number(process.env.RECONCILE_POLL_MS || 3_600_000);
  const reconcile = startReconcilePoller({ intervalMs: reconcileMs });
  log.info(`reading what the ad platforms counted every ${reconcileMs / 60_000} min per organization`);
  const tickMs = Number(process.env.SYNC_TICK_MS || 0);
  const sync = startSyncWorker({ concurrency: Number(process.env.SYNC_CONCURRENCY || 4), tickMs: tickMs || undefined });
  log.info(`running connection syncs${tickMs ? `, a scheduler tick every ${tickMs / 1000} s` : ''}`);
  const deadLetterMs = Number(process.env.DEAD_LETTER_POLL_MS || 60_000);
  const deadLetters = startDeadLetterReader({ intervalMs: deadLetterMs });
  log.info(`counting dead letters every ${deadLetterMs / 1000} s`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // The router drains once the puller takes no more; the puller sends acks until that drain is over.
    await Promise.all([
      puller.stop(() => router.drain()),
      poller.stop(),
      warehouse.stop(),
      reconcile.stop(),
      sync.stop(),
      deadLetters.stop(),
    ]);
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop());
}

main().catch((error) => {
  log.fatal(errorFields(error), 'the worker could not start');
  process.exit(1);
});
