/**
 * Section 6 of `npm run bench` (`npm run bench -- --only conversions` runs it alone): the conversions
 * pipeline, each figure beside a bare baseline measured in the same run on the same stack.
 *
 * (a) Ingest: POST /api/submissions (the real handler: key lookup, rate-limit counter, zod, hashing,
 *     publish) with single-event requests and with 500-event batches, beside a bare route that answers
 *     202, and beside the floor a durable 202 sets: the bare route that reads the body as JSON and
 *     publishes it as it came (no key, no checks, no hashing) through the same client and gathering
 *     before it answers. Its requests carry their email and phone as 64-hex stand-ins for hashes, so that
 *     nothing clear is queued even here (its bodies are some 80 bytes longer than the real route's). All are served the same way, in this process, through Next's apiResolver
 *     (tests/api/helpers/server.ts), with the route's own body-parser config; the client runs in a worker
 *     thread (keep-alive node:http) so it does not share the servers' event loop.
 * (b) End to end: N events (BENCH_CONVERSION_EVENTS, default 100,000) ingested in 500-event batches
 *     while one worker process (scripts/lib/worker.ts) delivers them to the sandbox's Meta: events/s
 *     from the first request to the last arrival, 202 → arrival latency of every event (its request's
 *     202 time beside the ledger's `receivedAt`, one clock: the sandbox runs in this process), and
 *     Conversions API calls beside ⌈N / 1,000⌉.
 * (c) The Pub/Sub emulator alone, the baseline of (b): N messages of a conversion event's size
 *     published with the app's client and batching, pulled at the same time by unary Pulls of 1,000
 *     (two loops, as lib/server/queue/pull.ts) and acknowledged, on a topic and subscription of its own.
 *     (b) carries its events 500 a message (one ingest request is one message), so (c) is also run with
 *     such messages, (c′): what the queue alone could carry of (b)'s events, to show where (b) spends.
 *     (c″): one-event messages (a website's single submissions) drained by the worker's own puller, whose
 *     Pulls are bounded by what full messages would weigh, beside the same messages pulled bare.
 *
 * (b₂) (b) again with two worker processes on the one subscription: events/s and CPU per event beside one
 *     worker's (2 cores bound the sum here), and whether each event reached Meta exactly once.
 * Every Firestore write of the bench process and its workers is counted per document path and second
 * (FIRESTORE_WRITE_TRACE_DIR, lib/server/writeTrace.ts): the table prints the busiest document's rate.
 *
 * BENCH_CONVERSIONS_PART=ingest runs (a) alone.
 * Targets (reported, not asserted): batched ingest ≥ 5,000 events/s on 2 cores; single events ≥ 0.80× the floor at 32 and
 * 256 in flight; (b) ≥ 80 % of (c), its CPU per event printed beside (c)'s.
 */
import { mkdtempSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { PageConfig } from 'next';
import type { PullOptions } from '@/lib/server/queue/pull';
import type { ConversionLedger } from '@/sandbox/conversions';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { busiestDocument } from '@/lib/server/writeTrace';
import { cpuMeter, emulatorProcesses, mainThreadCpuSeconds } from '@/scripts/lib/benchProcess';
import { portsFromEnv, startStack, TEST_PORTS, type StackPorts } from '@/scripts/lib/stack';

const BATCH = 500;
const META_BATCH = 1000;
/** Requests in flight at once: single events need many to cover the Firestore round trips of each. */
const SINGLE_CONCURRENCY = 32;
/**
 * Single events again with many more in flight, as a front door sees many visitors at once: each request
 * waits for its own durable publish (a Pub/Sub round trip), so at 32 in flight the real route is bound by
 * that latency while the bare route is bound by CPU; with more in flight both are bound by CPU.
 */
const SINGLE_CONCURRENCY_MANY = 256;
const BATCH_CONCURRENCY = 8;
/** How long each ingest run lasts; every mode runs twice, bare and real alternating. */
const INGEST_RUN_MS = Number(process.env.BENCH_INGEST_SECONDS || 5) * 1000;
/** (b) gives up waiting for arrivals this long after the last event was ingested. */
const DELIVERY_GRACE_MS = 300_000;

// ——— the load generator (runs in a worker thread) ———

export interface LoadSpec {
  url: string;
  key: string;
  /** 1: each request is one event object; more: `{events: [...]}` of this many. */
  perRequest: number;
  concurrency: number;
  /** Stop after this many events, or once this long has passed (whichever is given). */
  events?: number;
  durationMs?: number;
  prefix: string;
  /** Identifiers as 64-hex stand-ins for their SHA-256 (the floor route queues bodies as they come: nothing clear may be queued). */
  hashed?: boolean;
}

export interface LoadResult {
  requests: number;
  events: number;
  elapsedMs: number;
  /** Status → count of requests not answered 202. */
  failures: Record<string, number>;
  /** Per accepted request: its first event index, its event count and when its 202 arrived (ms since epoch). */
  accepted: Array<[first: number, count: number, at: number]>;
  /** Milliseconds from sending each answered request to its answer. */
  latencies: number[];
}

/** A 64-hex stand-in for a SHA-256, of an index (as a client that hashes its identifiers sends them). */
const hexOf = (kind: number, index: number) => `${kind}${index.toString(16)}`.padStart(64, '0');

/** One submitted event: clear identifiers (the server hashes them), or stand-ins for their hashes; a website event Meta accepts. */
function submittedEvent(prefix: string, index: number, hashed = false) {
  return {
    event: 'Lead',
    eventId: `${prefix}-${index}`,
    email: hashed ? hexOf(1, index) : `person${index}@example.com`,
    phone: hashed ? hexOf(2, index) : `+1 650 555 ${String(index % 10_000).padStart(4, '0')}`,
    value: 10,
    currency: 'USD',
    fbp: `fb.1.1700000000000.${index}`,
    pageUrl: 'https://shop.example/thanks',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) bench',
    ip: '203.0.113.5',
  };
}

async function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  const target = new URL(spec.url);
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const post = (body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: '/',
          method: 'POST',
          headers: { Authorization: `Bearer ${spec.key}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const result: LoadResult = { requests: 0, events: 0, elapsedMs: 0, failures: {}, accepted: [], latencies: [] };
  const started = performance.now();
  const until = spec.durationMs === undefined ? Infinity : started + spec.durationMs;
  const total = spec.events ?? Infinity;
  let next = 0;
  const user = async () => {
    while (performance.now() < until && next < total) {
      const first = next;
      const count = Math.min(spec.perRequest, total - first);
      next += count;
      const events = Array.from({ length: count }, (_, offset) => submittedEvent(spec.prefix, first + offset, spec.hashed));
      let status: number;
      const sentAt = performance.now();
      try {
        status = await post(JSON.stringify(spec.perRequest === 1 ? events[0] : { events }));
      } catch (error) {
        status = 0;
        result.failures[(error as Error).message] = (result.failures[(error as Error).message] ?? 0) + 1;
      }
      if (status) result.latencies.push(performance.now() - sentAt);
      if (status === 202) {
        result.requests += 1;
        result.events += count;
        result.accepted.push([first, count, Date.now()]);
      } else if (status) {
        result.failures[status] = (result.failures[status] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, user));
  result.elapsedMs = performance.now() - started;
  agent.destroy();
  return result;
}

if (!isMainThread && (workerData as { benchLoad?: LoadSpec } | null)?.benchLoad) {
  void generateLoad((workerData as { benchLoad: LoadSpec }).benchLoad).then((result) => parentPort!.postMessage(result));
}

/** Runs the load generator in a worker thread (tsx's require hook loads this file there). */
export function load(spec: LoadSpec): Promise<LoadResult> {
  const worker = new Worker(`require('tsx/cjs'); require(${JSON.stringify(__filename)});`, { eval: true, workerData: { benchLoad: spec } });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: LoadResult) => void worker.terminate().then(() => resolve(result)));
    worker.once('error', reject);
  });
}

/** A request's body as text (the floor route reads it as the real route does: bodyParser is off). */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

// ——— measuring ———

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rate = (count: number, ms: number) => (count * 1000) / ms;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}×`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const failuresOf = (result: LoadResult) =>
  Object.keys(result.failures).length
    ? ` (not accepted: ${Object.entries(result.failures)
        .map(([status, count]) => `${count}× ${status}`)
        .join(', ')})`
    : '';

/** CPU seconds per part of the pipeline over a stretch of the run: where the time of 2 cores goes. */
function pipelineCpu(ports: StackPorts, workers: number[] = []) {
  const meter = cpuMeter({
    'bench process (ingest handler, sandbox, load thread)': [process.pid],
    ...(workers.length ? { [workers.length === 1 ? 'delivery worker' : `${workers.length} delivery workers`]: workers } : {}),
    ...emulatorProcesses(ports),
  });
  const started = performance.now();
  /** What each part used since the meter started (in all, per core of wall time, per event), and their sum per event in µs. */
  return (events: number) => {
    const used = meter();
    const wall = (performance.now() - started) / 1000;
    return {
      text: used
        .map(
          ([name, seconds]) =>
            `${name} ${seconds.toFixed(1)} s (${(seconds / wall).toFixed(2)} cores, ${fmt((seconds * 1e6) / events)} µs/event)`,
        )
        .join('; '),
      perEvent: (used.reduce((sum, [, seconds]) => sum + seconds, 0) * 1e6) / events,
    };
  };
}

// ——— the three measurements ———

export type PubSubModule = typeof import('@/lib/server/queue/pubsub');

/**
 * (c) The emulator's own publish → pull + ack rate, with the app's client and batching settings: `count`
 * messages of `perMessage` events each, pulled by two bare loops of 1,000, or by the worker's puller
 * (lib/server/queue/pull.ts) with the given options.
 */
export async function barePubSub(
  queue: PubSubModule,
  count: number,
  data: Buffer,
  attributes: Record<string, string>,
  ports: StackPorts,
  { perMessage = 1, puller }: { perMessage?: number; puller?: PullOptions } = {},
) {
  const client = queue.pubsub();
  const name = `bench-bare-${Date.now()}`;
  const [topic] = await client.createTopic(name);
  await topic.createSubscription(name, { ackDeadlineSeconds: 20 });
  const publisher = client.topic(name, { batching: queue.CONVERSIONS_BATCHING });
  const subscriber = queue.subscriberClient();
  const path = `projects/${client.projectId}/subscriptions/${name}`;

  const seen = new Set<string>();
  const cpu = pipelineCpu(ports);
  let published = 0;
  let publishedMs = 0;
  let finished: (error?: unknown) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => (finished = (error) => (error ? reject(error) : resolve())));
  const started = performance.now();
  // As ingest publishes: BATCH_CONCURRENCY requests of 500 at a time.
  const publishing = Promise.all(
    Array.from({ length: BATCH_CONCURRENCY }, async () => {
      while (published < count) {
        const size = Math.min(Math.max(1, Math.floor(BATCH / perMessage)), count - published);
        published += size;
        await Promise.all(Array.from({ length: size }, () => publisher.publishMessage({ data, attributes })));
      }
      publishedMs = performance.now() - started;
    }),
  );
  const { pull } = await import('@/lib/server/queue/pull');
  const worker = puller
    ? pull(
        name,
        (message) => {
          seen.add(message.id);
          message.ack();
          if (seen.size >= count) finished();
        },
        puller,
      )
    : null;
  // Two loops as pull.ts runs them. The emulator holds a Pull on an empty subscription open, so the
  // run ends when the last message is acknowledged, not when both loops have returned.
  for (let loop = 0; loop < (worker ? 0 : 2); loop++) {
    void (async () => {
      while (seen.size < count) {
        const [response] = await subscriber.pull({ subscription: path, maxMessages: 1000 }, { timeout: 30_000 });
        const received = response.receivedMessages ?? [];
        if (received.length === 0) {
          await sleep(100);
          continue;
        }
        for (const item of received) seen.add(String(item.message?.messageId));
        await subscriber.acknowledge({ subscription: path, ackIds: received.map((item) => item.ackId!) });
      }
      finished();
    })().catch((error) => (seen.size < count ? finished(error) : undefined));
  }
  await Promise.all([publishing, done]);
  await worker?.stop(); // its last acknowledgements
  const elapsedMs = performance.now() - started;
  const cpuUse = cpu(count * perMessage);
  await subscriber.close();
  await client.subscription(name).delete();
  await topic.delete();
  return {
    rate: rate(count, elapsedMs),
    eventRate: rate(count * perMessage, elapsedMs),
    elapsedMs,
    publishRate: rate(count, publishedMs),
    cpuUse,
  };
}

interface Setup {
  orgId: string;
  appId: string;
  key: string;
}

/** (b) N events ingested → delivered to the sandbox's Meta by `workerCount` worker processes on the one subscription. */
async function endToEnd(setup: Setup, submissionsUrl: string, count: number, ports: StackPorts, ledger: ConversionLedger, workerCount = 1) {
  const { startWorker } = await import('@/scripts/lib/worker');
  const arrivedWith = (prefix: string) => ledger.list('meta').filter((entry) => entry.key.includes(`|Lead|${prefix}-`));
  const workers = Array.from({ length: workerCount }, () => startWorker({}, { quiet: true }));
  try {
    // Warm-up: one full Meta batch, which also waits for the worker to start pulling.
    const warm = `warm${Date.now()}`;
    await load({ url: submissionsUrl, key: setup.key, perRequest: BATCH, concurrency: 2, events: META_BATCH, prefix: warm });
    const warmDeadline = Date.now() + 120_000;
    while (arrivedWith(warm).length < META_BATCH) {
      if (Date.now() > warmDeadline) throw new Error('The worker delivered nothing within two minutes (is the stack up?).');
      await sleep(100);
    }

    const prefix = `e2e${Date.now()}`;
    const callsBefore = ledger.calls('meta');
    const baseCount = ledger.list('meta').length;
    const cpu = pipelineCpu(
      ports,
      workers.map((worker) => worker.child.pid!),
    );
    const startedAt = Date.now();
    const ingest = await load({
      url: submissionsUrl,
      key: setup.key,
      perRequest: BATCH,
      concurrency: BATCH_CONCURRENCY,
      events: count,
      prefix,
    });
    // Arrivals: the ledger is counted again only when Meta took another call.
    const deadline = Date.now() + DELIVERY_GRACE_MS;
    let calls = -1;
    let arrived = 0;
    while (arrived < ingest.events && Date.now() < deadline) {
      if (ledger.calls('meta') !== calls) {
        calls = ledger.calls('meta');
        arrived = ledger.list('meta').length - baseCount;
      }
      if (arrived < ingest.events) await sleep(100);
    }
    const cpuUse = cpu(count);
    const entries = arrivedWith(prefix);
    const acceptedAt = new Float64Array(count);
    for (const [first, size, at] of ingest.accepted) acceptedAt.fill(at, first, first + size);
    const indexOf = (key: string) => Number(key.slice(key.lastIndexOf('-') + 1));
    const latencies = entries.map((entry) => entry.receivedAt - acceptedAt[indexOf(entry.key)]!).sort((a, b) => a - b);
    // Latency by quarter of the events sent: growing from quarter to quarter, delivery falls behind ingest.
    const quarters = [0, 1, 2, 3].map((quarter) =>
      percentile(
        entries
          .filter((entry) => Math.floor((indexOf(entry.key) * 4) / count) === quarter)
          .map((entry) => entry.receivedAt - acceptedAt[indexOf(entry.key)]!)
          .sort((a, b) => a - b),
        50,
      ),
    );
    const lastArrival = entries.reduce((last, entry) => Math.max(last, entry.receivedAt), startedAt);
    return {
      ingested: ingest.events,
      ingestRate: rate(ingest.events, ingest.elapsedMs),
      ingestFailures: failuresOf(ingest),
      delivered: entries.length,
      duplicates: entries.filter((entry) => entry.receipts > 1).length,
      elapsedMs: lastArrival - startedAt,
      rate: rate(entries.length, lastArrival - startedAt),
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      max: latencies.at(-1) ?? NaN,
      quarters,
      calls: ledger.calls('meta') - callsBefore,
      complete: entries.length >= count,
      cpuUse,
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

/** The three routes of (a): the real one, the bare 202, and the bare 202 after a durable publish (the floor). */
interface IngestUrls {
  real: string;
  bare: string;
  floor: string;
}
const INGEST_ROUTES = ['bare', 'floor', 'real'] as const;
type IngestRoute = (typeof INGEST_ROUTES)[number];

/** (a) Ingest beside the bare 202 route and the durable floor: each mode twice, the three alternating, after a warm-up. */
async function ingestVersusBare(setup: Setup, urls: IngestUrls, ports: StackPorts) {
  const modes = [
    { label: 'single-event requests', perRequest: 1, concurrency: SINGLE_CONCURRENCY },
    { label: 'single-event requests', perRequest: 1, concurrency: SINGLE_CONCURRENCY_MANY },
    { label: `${BATCH}-event batches`, perRequest: BATCH, concurrency: BATCH_CONCURRENCY },
  ];
  const rows = [];
  for (const mode of modes) {
    const run = (url: string, durationMs: number, tag: string) =>
      load({
        url,
        key: setup.key,
        perRequest: mode.perRequest,
        concurrency: mode.concurrency,
        durationMs,
        prefix: `${tag}${mode.perRequest}x${Date.now()}`,
        hashed: url === urls.floor,
      });
    for (const which of INGEST_ROUTES) await run(urls[which], 1000, `warm${which}`);
    const totals = Object.fromEntries(
      INGEST_ROUTES.map((which) => [which, { events: 0, ms: 0, requests: 0, latencies: [] as number[], cpu: new Map<string, number>() }]),
    ) as Record<IngestRoute, { events: number; ms: number; requests: number; latencies: number[]; cpu: Map<string, number> }>;
    let failures = '';
    for (let round = 0; round < 2; round++) {
      for (const which of INGEST_ROUTES) {
        const meter = cpuMeter({ 'bench process': [process.pid], ...emulatorProcesses(ports) });
        const routeThreadBefore = mainThreadCpuSeconds();
        const result = await run(urls[which], INGEST_RUN_MS, which);
        const [bench, ...emulators] = meter();
        const used: Array<[string, number]> = [
          ...(bench ? [bench] : []),
          ['of it the route thread', mainThreadCpuSeconds() - routeThreadBefore],
          ...emulators,
        ];
        for (const [name, seconds] of used) totals[which].cpu.set(name, (totals[which].cpu.get(name) ?? 0) + seconds);
        totals[which].events += result.events;
        totals[which].requests += result.requests;
        totals[which].ms += result.elapsedMs;
        for (const latency of result.latencies) totals[which].latencies.push(latency);
        if (which !== 'bare') failures += failuresOf(result);
      }
    }
    rows.push({
      ...mode,
      real: rate(totals.real.events, totals.real.ms),
      bare: rate(totals.bare.events, totals.bare.ms),
      floor: rate(totals.floor.events, totals.floor.ms),
      realRequests: rate(totals.real.requests, totals.real.ms),
      realP99: percentile(
        totals.real.latencies.sort((a, b) => a - b),
        99,
      ),
      bareP99: percentile(
        totals.bare.latencies.sort((a, b) => a - b),
        99,
      ),
      failures,
      cpu: { bare: cpuPerEvent(totals.bare), floor: cpuPerEvent(totals.floor), real: cpuPerEvent(totals.real) },
    });
  }
  return rows;
}

/** CPU µs per event of each process over a mode's runs: "bench process 61 µs, Pub/Sub 12 µs". */
function cpuPerEvent({ cpu, events }: { cpu: Map<string, number>; events: number }): string {
  return [...cpu].map(([name, seconds]) => `${name} ${fmt((seconds * 1e6) / events)} µs`).join(', ');
}

type IngestRow = Awaited<ReturnType<typeof ingestVersusBare>>[number];

/** The (a) rows of the table: each mode's rate beside the bare route's, with both p99s. */
function ingestRows([single, many, batched]: IngestRow[]): string[] {
  const p99 = (row: IngestRow) => `p99 ${fmt(row.realP99)} ms (bare ${fmt(row.bareP99)} ms)`;
  const floorRow = (row: IngestRow, what: string) =>
    `| (a) the floor of a durable 202, ${what}: the bare route + publishing the body as it came | ${fmt(row.floor)} events/s | bare 202 route ${fmt(row.bare)} | ${ratio(row.floor, row.bare)} | the real route is ${ratio(row.real, row.floor)} of it (target ≥ 0.80×) |`;
  return [
    `| (a) ingest, single-event requests, ${SINGLE_CONCURRENCY} in flight | ${fmt(single!.real)} events/s, ${p99(single!)} | bare 202 route ${fmt(single!.bare)} req/s | ${ratio(single!.real, single!.bare)} | ≥ 0.50× |`,
    `| (a) ingest, single-event requests, ${SINGLE_CONCURRENCY_MANY} in flight | ${fmt(many!.real)} events/s, ${p99(many!)} | bare 202 route ${fmt(many!.bare)} req/s | ${ratio(many!.real, many!.bare)} | ≥ 0.50× |`,
    `| (a) ingest, ${BATCH}-event batches, ${BATCH_CONCURRENCY} in flight | ${fmt(batched!.real)} events/s, ${p99(batched!)} | bare 202 route ${fmt(batched!.bare)} events/s | ${ratio(batched!.real, batched!.bare)} | ≥ 5,000 events/s on 2 cores |`,
    floorRow(single!, `single events, ${SINGLE_CONCURRENCY} in flight`),
    floorRow(many!, `single events, ${SINGLE_CONCURRENCY_MANY} in flight`),
  ];
}

/** (a) alone (BENCH_CONVERSIONS_PART=ingest). */
function printIngest(rows: IngestRow[]) {
  console.log(['| figure | this run | baseline (same run) | ratio | target |', '|---|---:|---:|---:|---|', ...ingestRows(rows)].join('\n'));
  console.log(`(a) real single-event route ${fmt(rows[0]!.realRequests)} req/s${rows.map((row) => row.failures).join('')}.`);
  console.log(ingestCpu(rows));
}

/** Where each mode's CPU went per event, bare beside real (the bench process holds the route and the load thread). */
function ingestCpu(rows: IngestRow[]): string {
  return rows
    .map(
      (row) =>
        `(a) CPU per event, ${row.label} × ${row.concurrency}: bare: ${row.cpu.bare}; floor: ${row.cpu.floor}; real: ${row.cpu.real}.`,
    )
    .join('\n');
}

/** Runs (c), (b) and (a) on a stack of its own and prints their table. */
export async function benchConversions() {
  const count = Number(process.env.BENCH_CONVERSION_EVENTS || 100_000);
  const ports = portsFromEnv(TEST_PORTS);
  const started = performance.now();
  const stack = await startStack(ports);
  console.log(
    `\nConversions pipeline (N = ${fmt(count)}); emulator stack cold start: ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  // Every Firestore write of this process and of the workers it starts, per document and second.
  const traceDir = mkdtempSync(path.join(tmpdir(), 'bench-writes-'));
  Object.assign(process.env, stack.env, {
    // The bench sends far more than one key may; the limits are still counted per request.
    RATE_LIMIT_SUBMISSIONS_PER_KEY_PER_SECOND: '1000000000',
    FIRESTORE_WRITE_TRACE_DIR: traceDir,
  });
  try {
    const { platformsEnv, startFakePlatforms } = await import('@/sandbox/platforms');
    const platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
    Object.assign(process.env, platformsEnv(platforms));
    const { setUpConversion } = await import('@/tests/api/helpers/conversions');
    const { rotateSubmissionKey } = await import('@/lib/server/repos/apps');
    const { serveHandler } = await import('@/tests/api/helpers/server');
    const submissions = await import('@/pages/api/submissions');
    const queue = await import('@/lib/server/queue/pubsub');
    const { toConversionEvent } = await import('@/lib/server/delivery/normalize');
    const { submittedEventSchema } = await import('@/lib/shared/schemas/submissions');

    const conversion = await setUpConversion('meta_ads');
    const { key } = await rotateSubmissionKey(conversion.orgId, conversion.appId);
    const setup: Setup = { orgId: conversion.orgId, appId: conversion.appId, key };
    await queue.ensureTopology();
    // The route's own config (its 1 MB body limit) for both; its literal type is narrower than PageConfig's.
    const config = submissions.config as PageConfig;
    const real = await serveHandler(submissions.default, config);
    const bare = await serveHandler((_req, res) => void res.status(202).json({ success: true }), config);
    const floor = await serveHandler(async (req, res) => {
      const body = JSON.parse(await readBody(req)) as { events?: unknown[] };
      const events = (Array.isArray(body.events) ? body.events : [body]) as ConversionEvent[];
      await queue.publishConversions(events, { org: setup.orgId, source: `floor:${setup.appId}` });
      res.status(202).json({ success: true });
    }, config);
    const urls: IngestUrls = { real: real.url, bare: bare.url, floor: floor.url };
    const closeRoutes = () => Promise.all([real.close(), bare.close(), floor.close(), platforms.close()]);

    if (process.env.BENCH_CONVERSIONS_PART === 'ingest') {
      // (a) alone: what a change to the front door does, in a minute instead of ten.
      const from = Date.now();
      const ingestOnly = await ingestVersusBare(setup, urls, ports);
      await closeRoutes();
      printIngest(ingestOnly);
      await sleep(1500);
      const busiest = busiestDocument(traceDir, from);
      console.log(
        `(a) highest write rate seen on any single document path: ${busiest ? `${busiest.writes} writes/s (${busiest.path})` : 'no writes'}.`,
      );
      return;
    }
    // (c) on its own topic: a message as large as the events of (b).
    const source = `app:${setup.appId}`;
    const sample = toConversionEvent(submittedEventSchema.parse(submittedEvent('sample', 12345)), { source, receivedAt: new Date() });
    const data = Buffer.from(JSON.stringify(sample));
    // (c) runs before and after (b), and (b) is set beside their mean: the machine's load drifts. A
    // first, shorter run warms the emulator's JVM, which (b) would otherwise find warmed by (c) alone.
    await barePubSub(queue, Math.min(count, 20_000), data, { org: setup.orgId, source }, ports);
    const bareBefore = await barePubSub(queue, count, data, { org: setup.orgId, source }, ports);
    const runStarted = Date.now();
    const e2e = await endToEnd(setup, real.url, count, ports, platforms.conversions);
    const bareAfter = await barePubSub(queue, count, data, { org: setup.orgId, source }, ports);
    // (b₂) the same with two workers on the one subscription: each event once, and what a second worker adds.
    const e2eTwo = await endToEnd(setup, real.url, count, ports, platforms.conversions, 2);
    const bareRate = (bareBefore.rate + bareAfter.rate) / 2;
    // (c′) the same events packed as (b) carries them.
    const { EVENTS_PER_MESSAGE } = queue;
    const [packed] = queue.packEvents(Array.from({ length: EVENTS_PER_MESSAGE }, () => sample));
    const barePacked = await barePubSub(
      queue,
      Math.ceil(count / EVENTS_PER_MESSAGE),
      packed!.data,
      { org: setup.orgId, source, events: String(packed!.count) },
      ports,
      {
        perMessage: EVENTS_PER_MESSAGE,
      },
    );
    // (c″) one-event messages (a website's single submissions) through the worker's own puller, whose Pulls
    // are bounded by what full messages would weigh; beside (c), which pulls 1,000 at a time.
    const { WORKER_MAX_EVENTS_DEFAULT: WORKER_MAX_EVENTS } = await import('@/lib/server/delivery/router');
    const pullerOptions = { maxOutstanding: WORKER_MAX_EVENTS, weigh: queue.eventsInMessage, maxWeight: EVENTS_PER_MESSAGE };
    const lightCount = Math.min(count, 30_000);
    const light = await barePubSub(queue, lightCount, data, { org: setup.orgId, source, events: '1' }, ports, { puller: pullerOptions });
    const lightBare = await barePubSub(queue, lightCount, data, { org: setup.orgId, source, events: '1' }, ports);
    const bareCpu = (bareBefore.cpuUse.perEvent + bareAfter.cpuUse.perEvent) / 2;
    // (a) last: no worker runs, so what it publishes waits on the subscription and costs (b) nothing.
    const ingest = await ingestVersusBare(setup, urls, ports);
    await closeRoutes();
    await sleep(1500); // the tracers write each finished second
    const hottest = busiestDocument(traceDir, runStarted);
    // The front door's own writes: this process serves ingest (the workers write their counters).
    const frontDoor = busiestDocument(traceDir, runStarted, Infinity, [process.pid]);

    const [single] = ingest;
    console.log(
      [
        '| figure | this run | baseline (same run) | ratio | target |',
        '|---|---:|---:|---:|---|',
        ...ingestRows(ingest),
        `| (b) end to end, ${fmt(e2e.ingested)} events → Meta, 1 worker | ${fmt(e2e.rate)} events/s | (c) ${fmt(bareRate)} msg/s | ${ratio(e2e.rate, bareRate)} | ≥ 0.80× (c) |`,
        `| (b) CPU per event, our processes together (drifts less than time) | ${fmt(e2e.cpuUse.perEvent)} µs | (c) ${fmt(bareCpu)} µs | ${ratio(e2e.cpuUse.perEvent, bareCpu)} | — (≤ 1.25× would meet 0.80× when CPU-bound) |`,
        `| (b₂) end to end, 2 workers on the one subscription | ${fmt(e2eTwo.rate)} events/s, ${fmt(e2eTwo.cpuUse.perEvent)} µs CPU/event | (b) 1 worker ${fmt(e2e.rate)} events/s, ${fmt(e2e.cpuUse.perEvent)} µs CPU/event | ${ratio(e2eTwo.rate, e2e.rate)} | — (2 cores bound the sum) |`,
        `| (b₂) each event at Meta exactly once, 2 workers | ${fmt(e2eTwo.delivered)} of ${fmt(e2eTwo.ingested)} arrived, ${fmt(e2eTwo.duplicates)} more than once | — | — | ${e2eTwo.complete && e2eTwo.duplicates === 0 ? 'met' : 'NOT MET'} |`,
        `| highest write rate seen on any single document path, (b), (b₂) and (a) | ${hottest ? `${fmt(hottest.writes)} writes/s` : 'none traced'} | Firestore's ~1 write/s per document | ${hottest ? ratio(hottest.writes, 1) : '—'} | ≤ 1.00× per key or conversion |`,
        `| the same, the front door alone (ingest's process: key lookups, rate limits) | ${frontDoor ? `${fmt(frontDoor.writes)} writes/s` : 'none traced'} | Firestore's ~1 write/s per document | ${frontDoor ? ratio(frontDoor.writes, 1) : '—'} | ≤ 1.00× per key |`,
        `| (b) 202 → at Meta, every event | p50 ${fmt(e2e.p50)} ms, p95 ${fmt(e2e.p95)} ms, max ${fmt(e2e.max)} ms | — | — | — |`,
        `| (b) Conversions API calls | ${fmt(e2e.calls)} | ⌈N / 1,000⌉ = ${fmt(Math.ceil(e2e.ingested / META_BATCH))} | ${ratio(e2e.calls, Math.ceil(e2e.ingested / META_BATCH))} | 1.00× |`,
        `| (c) Pub/Sub emulator, publish → pull 1,000 + ack, ${data.length}-byte messages | ${fmt(bareBefore.rate)} msg/s before (b), ${fmt(bareAfter.rate)} after | — | — | — |`,
        `| (c′) the same, ${EVENTS_PER_MESSAGE} events a message (${fmt(packed!.data.length)} bytes) as (b) sends them | ${fmt(barePacked.eventRate)} events/s (${fmt(barePacked.rate)} msg/s) | — | (b) is ${ratio(e2e.rate, barePacked.eventRate)} of it | — |`,
        `| (c″) ${fmt(lightCount)} one-event messages through the worker's puller (limit ${fmt(WORKER_MAX_EVENTS)} events, at most ${fmt((2 * WORKER_MAX_EVENTS) / EVENTS_PER_MESSAGE)} a Pull) | ${fmt(light.rate)} msg/s | the same by bare Pulls of 1,000 ${fmt(lightBare.rate)} msg/s | ${ratio(light.rate, lightBare.rate)} | — |`,
      ].join('\n'),
    );
    console.log(
      [
        `(a) bodies parsed by both routes alike (Next apiResolver, 1 MB limit); real single-event route ${fmt(single!.realRequests)} req/s${ingest.map((row) => row.failures).join('')}.`,
        ingestCpu(ingest),
        `(b) ${fmt(e2e.delivered)} of ${fmt(e2e.ingested)} arrived${e2e.complete ? '' : ` — INCOMPLETE after ${DELIVERY_GRACE_MS / 1000} s of waiting`}, ${fmt(e2e.duplicates)} more than once; ` +
          `${(e2e.elapsedMs / 1000).toFixed(1)} s from the first request to the last arrival; ingest alone ran at ${fmt(e2e.ingestRate)} events/s meanwhile${e2e.ingestFailures}.`,
        `(b) p50 latency by quarter of the events sent: ${e2e.quarters.map((ms) => `${fmt(ms)} ms`).join(' → ')}. CPU: ${e2e.cpuUse.text}.`,
        `Busiest document: ${hottest ? `${hottest.path} (${fmt(hottest.writes)} writes in the second from ${new Date(hottest.second * 1000).toISOString()})` : '—'}. (b₂) CPU: ${e2eTwo.cpuUse.text}.`,
        `(c) publishing alone ${fmt(bareBefore.publishRate)} / ${fmt(bareAfter.publishRate)} msg/s. CPU (before): ${bareBefore.cpuUse.text}.`,
      ].join('\n'),
    );
  } finally {
    await stack.stop();
  }
}
