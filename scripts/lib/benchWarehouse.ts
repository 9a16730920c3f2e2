/**
 * Section 8 of `npm run bench` (`npm run bench -- --only warehouse` runs it alone): conversions read
 * from the warehouse, on a stack of its own (own emulator ports), through one worker process
 * (scripts/lib/worker.ts) — the warehouse reader and the delivery worker it runs beside.
 *
 * For each table size N (BENCH_WAREHOUSE_ROWS, default "50000,200000"): a fresh BigQuery table in the
 * sandbox of N qualified leads (unique lead id, email, value, currency, updated_at within the last
 * hour), a conversion from it to the sandbox's Meta pixel, and a fresh worker. The read is due as the
 * conversion is created; the clock stops at the last event's arrival at the sandbox's Meta:
 * - rows/s from "due" to the last arrival, every row counted once by Meta's dedup key;
 * - Meta calls beside ⌈N / 1,000⌉ (its batch maximum);
 * - the worker's peak memory (VmHWM reset after start-up, and the highest VmRSS sampled every 200 ms):
 *   a read pages through the results (5,000 rows a page) and never holds a table, so the peak should
 *   barely move as N grows — the figure set beside the smallest N's;
 * - CPU seconds per process (this one hosts the sandbox, its BigQuery fake included).
 *
 * Two baselines of the same run, each the cost of one stage alone:
 * - the reader alone: the same table paged through the same BigQuery client code (readRows), in this
 *   process, without mapping, Pub/Sub, Firestore or Meta;
 * - the Pub/Sub emulator alone: N messages of a conversion event's size published and pulled
 *   (benchConversions.ts's (c)).
 */
import { performance } from 'node:perf_hooks';
import type { BigQuerySource } from '@/lib/shared/conversions/conversion';
import { cpuMeter, cpuText, emulatorProcesses, memoryOf, resetPeak, rssSampler } from '@/scripts/lib/benchProcess';
import { portsFromEnv, startStack, type StackPorts } from '@/scripts/lib/stack';

/** Ports of this section's stack: neither the dev stack's, the tests', nor another section's. */
const WAREHOUSE_PORTS: StackPorts = { auth: 9499, firestore: 8480, hub: 4440, logging: 4540, pubsub: 8485 };
const SIZES = (process.env.BENCH_WAREHOUSE_ROWS || '50000,200000').split(',').map(Number);
const PROJECT = 'acme-warehouse';
const DATASET = 'bench';
const META_BATCH = 1000;
/** A read still arriving after this long is reported as incomplete. */
const CAP_MS = Number(process.env.BENCH_WAREHOUSE_CAP_SECONDS || 600) * 1000;

const FIELDS = [
  { name: 'lead_id', type: 'STRING' },
  { name: 'email', type: 'STRING' },
  { name: 'value', type: 'NUMERIC' },
  { name: 'currency', type: 'STRING' },
  { name: 'updated_at', type: 'TIMESTAMP' },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (kb: number) => (Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MB` : 'n/a');
const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}×`;

/** N leads, updated a few per millisecond over the last hour (ties included), in chunks the fake takes at once. */
function insertLeads(insert: (rows: Array<Record<string, unknown>>) => void, prefix: string, count: number) {
  const base = Date.now() - 3600_000;
  for (let start = 0; start < count; start += 10_000) {
    insert(
      Array.from({ length: Math.min(10_000, count - start) }, (_, offset) => {
        const index = start + offset;
        return {
          lead_id: `${prefix}-${index}`,
          email: `lead${index}@example.com`,
          value: '250.00',
          currency: 'USD',
          updated_at: new Date(base + Math.floor(index / 3)).toISOString(),
        };
      }),
    );
  }
}

interface Measured {
  rows: number;
  arrived: number;
  twice: number;
  wallMs: number;
  calls: number;
  readerMs: number;
  bareRate: number;
  hwmKb: number;
  peakKb: number;
  peakReset: boolean;
  cpu: string;
}

export async function benchWarehouse() {
  const ports = portsFromEnv(WAREHOUSE_PORTS);
  const started = performance.now();
  const stack = await startStack(ports);
  console.log(
    `\nConversions from the warehouse (BigQuery → Meta), N = ${SIZES.map(fmt).join(' and ')}; emulator stack cold start: ${secs(performance.now() - started)}`,
  );
  Object.assign(process.env, stack.env);
  try {
    const { platformsEnv, startFakePlatforms } = await import('@/sandbox/platforms');
    const platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
    Object.assign(process.env, platformsEnv(platforms));
    const { connectWarehouse } = await import('@/tests/api/helpers/connections');
    const { connectDestination, SANDBOX_TARGETS } = await import('@/tests/api/helpers/conversions');
    const { createTestOrganization, createTestUser } = await import('@/tests/fixtures/firebase');
    const { createConversion } = await import('@/lib/server/services/conversions');
    const { openSessionOf } = await import('@/lib/server/credentials');
    const { describeSource, readRows } = await import('@/lib/server/connectors/bigquery/source');
    const { rowToEvent } = await import('@/lib/server/delivery/warehouseRows');
    const queue = await import('@/lib/server/queue/pubsub');
    const { barePubSub } = await import('@/scripts/lib/benchConversions');
    const { startWorker } = await import('@/scripts/lib/worker');
    await queue.ensureTopology();

    const owner = await createTestUser();
    const orgId = await createTestOrganization([[owner, 'owner']]);
    const warehouseId = await connectWarehouse(orgId, owner.uid, 'bigquery', platforms.serviceAccountKey);
    const metaId = await connectDestination(orgId, owner.uid, 'meta_ads');
    const { session } = await openSessionOf(orgId, 'destination', warehouseId);

    const measured: Measured[] = [];
    for (const rows of SIZES) {
      const prefix = `wh${rows}x${Date.now().toString(36)}`;
      const table = `leads_${prefix}`;
      platforms.bigquery.createTable(PROJECT, DATASET, table, FIELDS);
      insertLeads((chunk) => platforms.bigquery.insertRows(PROJECT, DATASET, table, chunk), prefix, rows);
      const source: BigQuerySource = {
        type: 'bigquery',
        destinationId: warehouseId,
        projectId: PROJECT,
        mode: 'table',
        table: `${PROJECT}.${DATASET}.${table}`,
        sql: '',
        cursorColumn: 'updated_at',
        maximumBytesBilled: 10_000_000_000,
        columns: { eventId: 'lead_id', eventTime: 'updated_at', email: 'email', value: 'value', currency: 'currency' },
        eventName: 'Lead',
        schedule: { every: 'hourly', at: '06:00', timeZone: 'UTC' },
      };

      // Baseline: the reader alone, paging the same table through the same client code.
      const readerStarted = performance.now();
      const { columns } = await describeSource(session, source);
      let read = 0;
      for await (const page of readRows(session, source, null, { columns })) read += page.rows.length;
      const readerMs = performance.now() - readerStarted;
      if (read !== rows) throw new Error(`the reader alone read ${read} of ${rows} rows`);

      // Baseline: the Pub/Sub emulator alone, N messages as large as this source's events.
      const sample = rowToEvent(
        { lead_id: `${prefix}-1`, email: 'lead1@example.com', value: '250.00', currency: 'USD', updated_at: new Date().toISOString() },
        source,
        `bigquery:${warehouseId}`,
      );
      if (!sample.ok) throw new Error(sample.reason);
      const bare = await barePubSub(
        queue,
        rows,
        Buffer.from(JSON.stringify(sample.event)),
        { org: orgId, source: `bigquery:${warehouseId}`, conversion: 'bench' },
        ports,
      );

      // The pipeline: a fresh worker, warmed up, then the conversion (its first read is due at once).
      const worker = startWorker(
        { ...process.env, WAREHOUSE_POLL_MS: '500', DELIVERY_LINGER_MS: '1000', PAYMENTS_POLL_MS: '3600000', SYNC_TICK_MS: '0' },
        { quiet: true },
      );
      const pid = worker.child.pid!;
      await sleep(5000);
      const peakReset = resetPeak(pid);
      const sampled = rssSampler(pid);
      const cpu = cpuMeter({ 'this process (sandbox: BigQuery fake, Meta)': [process.pid], worker: [pid], ...emulatorProcesses(ports) });
      const callsBefore = platforms.conversions.calls('meta');
      const mine = () => platforms.conversions.list('meta').filter((entry) => entry.key.includes(`|Lead|${prefix}-`));
      const due = Date.now();
      await createConversion(orgId, 'growth', owner.uid, {
        name: `Leads ${prefix}`,
        source,
        destination: { destinationId: metaId, ...SANDBOX_TARGETS.meta_ads },
        mapping: { events: [], value: { mode: 'event' }, identifiers: ['email'] },
      });
      // Listing the ledger is costly at 200,000: only once the calls could have carried every row.
      let arrived = mine();
      while (Date.now() - due < CAP_MS) {
        await sleep(500);
        if (platforms.conversions.calls('meta') - callsBefore < Math.ceil(rows / META_BATCH)) continue;
        arrived = mine();
        if (arrived.length >= rows) break;
      }
      const last = arrived.reduce((latest, entry) => Math.max(latest, entry.receivedAt), due);
      const cpuUse = cpuText(cpu());
      const peakKb = sampled();
      const { hwm } = memoryOf(pid);
      await worker.stop();
      measured.push({
        rows,
        arrived: arrived.length,
        twice: arrived.filter((entry) => entry.receipts > 1).length,
        wallMs: last - due,
        calls: platforms.conversions.calls('meta') - callsBefore,
        readerMs,
        bareRate: bare.rate,
        hwmKb: hwm,
        peakKb,
        peakReset,
        cpu: cpuUse,
      });
    }
    await platforms.close();
    report(measured);
  } finally {
    await stack.stop();
  }
}

/** CPU seconds of each process over a stretch of the run. */

function report(measured: Measured[]) {
  const smallest = measured[0]!;
  console.log(
    [
      '| rows | due → last at Meta | rows/s | × reader alone | × bare Pub/Sub | Meta calls vs ⌈N/1,000⌉ | at Meta once | worker peak (HWM / sampled) | × smallest N |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...measured.map((run) => {
        const rate = (run.rows * 1000) / run.wallMs;
        const readerRate = (run.rows * 1000) / run.readerMs;
        const peak = run.peakReset ? run.hwmKb : run.peakKb;
        const smallestPeak = smallest.peakReset ? smallest.hwmKb : smallest.peakKb;
        return (
          `| ${fmt(run.rows)} | ${secs(run.wallMs)} | ${fmt(rate)} | ${ratio(rate, readerRate)} (${fmt(readerRate)} rows/s) | ${ratio(rate, run.bareRate)} (${fmt(run.bareRate)} msg/s) | ` +
          `${fmt(run.calls)} vs ${fmt(Math.ceil(run.rows / META_BATCH))} | ${fmt(run.arrived - run.twice)} of ${fmt(run.rows)}${run.arrived < run.rows ? ' — INCOMPLETE' : ''} | ` +
          `${mb(run.hwmKb)} / ${mb(run.peakKb)} | ${ratio(peak, smallestPeak)} |`
        );
      }),
    ].join('\n'),
  );
  for (const run of measured)
    console.log(`N = ${fmt(run.rows)}: CPU ${run.cpu}; ${fmt(run.twice)} rows reached Meta more than once (Meta counts them once).`);
}
