/**
 * `npm run worker`: the conversion delivery worker. Pulls conversion events from Pub/Sub
 * (PUBSUB_EMULATOR_HOST locally), delivers them in batches through the connectors and records each
 * platform call. Stateless: run as many as the load needs on the one subscription.
 */
import { createConversionRouter } from '@/lib/server/conversions/router';
import { pull } from '@/lib/server/queue/pull';
import { ensureTopology, SUBSCRIPTIONS } from '@/lib/server/queue/pubsub';

async function main() {
  await ensureTopology();
  const router = createConversionRouter();
  // Enough messages in hand to fill the largest platform batch (Data Manager: 2,000) while others are sent.
  const puller = pull(SUBSCRIPTIONS.delivery, router.handle, { maxOutstanding: Number(process.env.WORKER_MAX_MESSAGES || 5000) });
  console.log(`[worker] delivering conversions from ${SUBSCRIPTIONS.delivery}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all([puller.stop(), router.drain()]);
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop());
}

main().catch((error) => {
  console.error('[worker] could not start', error);
  process.exit(1);
});
