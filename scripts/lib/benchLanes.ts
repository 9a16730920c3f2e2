/**
 * `npm run bench -- --only lanes`: delivery to a healthy platform while another hangs, on a stack of its own.
 * One worker, two organizations: one sends to the sandbox's Meta, one to its Google (Data Manager). Both
 * publish at a steady rate for a while with nothing hanging (the baseline), then again while Meta hangs
 * (takes requests and never answers: the worker's 15 s timeout ends them). What is printed: the p50/p95 of
 * Google's delivery latency (published → received by the sandbox) in each phase and their ratio (target
 * ≤ 2×), and what reached Meta. A shared pool of delivery slots would let the hung platform hold them all.
 */
import { performance } from 'node:perf_hooks';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { portsFromEnv, startStack, TEST_PORTS } from '@/scripts/lib/stack';

const PHASE_MS = Number(process.env.BENCH_LANES_PHASE_MS || 30_000);
/** Events a second to each platform (Meta floods harder: its messages are what would fill the worker). */
const GOOGLE_PER_SECOND = 100;
const META_PER_SECOND = 500;
const TICK_MS = 100;

const fmt = (value: number) => Math.round(value).toLocaleString('en-US');
const percentile = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? NaN;

function events(count: number, prefix: string): ConversionEvent[] {
  const now = Math.floor(Date.now() / 1000) - 60;
  return Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index}`,
    name: 'Lead',
    time: now,
    value: 10,
    currency: 'USD',
    user: { email: 'a'.repeat(64) },
    clickIds: { fbp: `fb.1.1700000000000.${index}`, gclid: `Cj0KCQ-${prefix}-${index}` },
    context: { actionSource: 'website', userAgent: 'Mozilla/5.0', ip: '203.0.113.5', pageUrl: 'https://shop.example/thanks' },
  }));
}

export async function benchLanes() {
  const ports = portsFromEnv(TEST_PORTS);
  const stack = await startStack(ports);
  Object.assign(process.env, stack.env);
  console.log(
    `\nDelivery lanes: one worker, Google at ${GOOGLE_PER_SECOND} events/s beside Meta at ${META_PER_SECOND} events/s, ${PHASE_MS / 1000} s a phase`,
  );
  const { platformsEnv, startFakePlatforms } = await import('@/sandbox/platforms');
  const platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  const { startWorker } = await import('@/scripts/lib/worker');
  const worker = startWorker({}, { quiet: true });
  try {
    const { setUpConversion } = await import('@/tests/api/helpers/conversions');
    const { publishConversions, ensureTopology } = await import('@/lib/server/queue/pubsub');
    await ensureTopology();
    const meta = await setUpConversion('meta_ads');
    const google = await setUpConversion('google_ads');
    const ledger = platforms.conversions;

    /** Publishes both flows for one phase; resolves with when each Google event was published. */
    async function phase(tag: string) {
      const published = new Map<string, number>();
      const started = performance.now();
      let tick = 0;
      while (performance.now() - started < PHASE_MS) {
        const googleEvents = events((GOOGLE_PER_SECOND * TICK_MS) / 1000, `${tag}g${tick}`);
        const metaEvents = events((META_PER_SECOND * TICK_MS) / 1000, `${tag}m${tick}`);
        const at = Date.now();
        await Promise.all([
          publishConversions(googleEvents, { org: google.orgId, source: `app:${google.appId}` }),
          publishConversions(metaEvents, { org: meta.orgId, source: `app:${meta.appId}` }),
        ]);
        for (const event of googleEvents) published.set(event.id, at);
        tick += 1;
        const next = started + tick * TICK_MS;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
      }
      // Every Google event of the phase arrives (a minute at most), then its latencies are read off the ledger.
      const deadline = Date.now() + 60_000;
      const mine = () => ledger.list('google').filter((entry) => published.has(entry.key.split('|')[1]!));
      while (mine().length < published.size && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const latencies = mine()
        .map((entry) => entry.receivedAt - published.get(entry.key.split('|')[1]!)!)
        .sort((a, b) => a - b);
      const metaArrived = ledger.list('meta').filter((entry) => entry.key.includes(`|Lead|${tag}m`)).length;
      return {
        sent: published.size,
        arrived: latencies.length,
        p50: percentile(latencies, 0.5),
        p95: percentile(latencies, 0.95),
        metaSent: tick * ((META_PER_SECOND * TICK_MS) / 1000),
        metaArrived,
      };
    }

    await phase('warm'); // the worker's first reads, the JIT, the emulators' JVMs
    const healthy = await phase('ok');
    ledger.fail('meta', { status: 'hang', seconds: 3600 });
    const hung = await phase('hang');
    ledger.recover('meta');
    // Nothing of the hang is lost: what Meta did not take comes back (set aside, retried) once it answers.
    const recovered = performance.now();
    const metaOfHang = () => ledger.list('meta').filter((entry) => entry.key.includes('|Lead|hangm')).length;
    while (metaOfHang() < hung.metaSent && performance.now() - recovered < 180_000)
      await new Promise((resolve) => setTimeout(resolve, 500));
    const catchUp = (performance.now() - recovered) / 1000;
    const ratio = hung.p95 / healthy.p95;
    console.log(
      [
        '| figure | this run | baseline (same run) | ratio | target |',
        '| --- | --- | --- | --- | --- |',
        `| Google delivery p95 while Meta hangs | ${fmt(hung.p95)} ms (p50 ${fmt(hung.p50)}) | nothing hanging ${fmt(healthy.p95)} ms (p50 ${fmt(healthy.p50)}) | ${ratio.toFixed(2)}× | ≤ 2× |`,
        `| Google events delivered | ${fmt(hung.arrived)} of ${fmt(hung.sent)} | ${fmt(healthy.arrived)} of ${fmt(healthy.sent)} | — | all |`,
        `| Meta events received during the phase | ${fmt(hung.metaArrived)} (hanging) | ${fmt(healthy.metaArrived)} | — | — |`,
        `| Meta events of the hang delivered once it answers | ${fmt(metaOfHang())} of ${fmt(hung.metaSent)} in ${catchUp.toFixed(1)} s | — | — | all |`,
      ].join('\n'),
    );
  } finally {
    await worker.stop();
    await platforms.close();
    await stack.stop();
  }
}
