/**
 * Section 11 of `npm run bench` (`npm run bench -- --only cost` runs it alone): what a million conversion events
 * and a two-year backfill cost in Firestore and Pub/Sub, on a stack of its own, counted at our own boundary
 * (COST_TRACE_DIR, lib/server/costTrace.ts) in every process: this one (the ingest route, the sandbox) and the
 * worker it starts (scripts/lib/worker.ts).
 *
 * (a) Events end to end: N events (BENCH_COST_EVENTS, default 50,000) posted to the real POST /api/submissions in
 *     500-event requests, 8 in flight (a server sending batches), then M more (BENCH_COST_SINGLE_EVENTS, default
 *     10,000) as single-event requests, 64 in flight (a website's snippet), each delivered by one worker to the
 *     sandbox's Meta. From just before the first request to a few seconds after the last event reached Meta
 *     (so the counters and the conversion's document, written each second and each 5 s, are in), every document
 *     read, written and deleted and every Pub/Sub message published and delivered is counted, split by stage
 *     (costStages.ts: ingest, delivery, delivery log, counters, payload chunks, the worker's pollers) and scaled
 *     to 1,000,000 events.
 * (b) A two-year backfill (BENCH_COST_BACKFILL_DAYS, default 730) of one Google Ads account of the sync bench's
 *     fake data (50 campaigns × 2 ad groups, ad-group level: 100 rows a day) into the sandbox's Mixpanel, through
 *     a fresh worker, after a warm-up run: what the backfill asks of Firestore and Pub/Sub, per account.
 *     This process waits for the run through the emulator's REST API, so its polling is not counted.
 *
 * Then each is multiplied by the list prices of docs/cost.md. BENCH_COST_ROUNDS (default 1) repeats (a) and
 * prints the median of each figure beside the rounds.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { readCostTotals, type CostTotals } from '@/lib/server/costTrace';
import { load } from '@/scripts/lib/benchConversions';
import { costOf, costTable, diffTotals, perMillion, stageRows, type Measured } from '@/scripts/lib/costStages';
import { portsFromEnv, startStack, TEST_PORTS } from '@/scripts/lib/stack';

const EVENTS = Number(process.env.BENCH_COST_EVENTS || 50_000);
const SINGLE_EVENTS = Number(process.env.BENCH_COST_SINGLE_EVENTS || 10_000);
const BACKFILL_DAYS = Number(process.env.BENCH_COST_BACKFILL_DAYS || 730);
const ROUNDS = Math.max(1, Number(process.env.BENCH_COST_ROUNDS || 1));
/** The account of the sync bench's fake data a backfill reads (a client account reached directly). */
const ACCOUNT = '5556667778';
const SHAPE = { campaigns: 50, adGroupsPerCampaign: 2, adsPerAdGroup: 1 };
/** After the last arrival: the worker's counters are written each second, the conversion's document each 5 s. */
const SETTLE_MS = 6500;
/** Gives up on arrivals this long after the last event was ingested. */
const DELIVERY_GRACE_MS = 300_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Every traced process's running totals, by pid. */
function snapshot(dir: string): Map<string, CostTotals> {
  return new Map(
    readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => [name.slice(0, -5), readCostTotals(dir, [name])]),
  );
}

/** What each process counted between two snapshots. */
function windowOf(before: Map<string, CostTotals>, after: Map<string, CostTotals>): Map<string, CostTotals> {
  return new Map([...after].map(([pid, totals]) => [pid, diffTotals(totals, before.get(pid))]));
}

type Ledger = import('@/sandbox/conversions').ConversionLedger;

/** Waits until `count` events of `prefix` reached the sandbox's Meta (counted again only when Meta took another call). */
async function arrivals(ledger: Ledger, prefix: string, count: number): Promise<number> {
  const deadline = Date.now() + DELIVERY_GRACE_MS;
  let calls = -1;
  let arrived = 0;
  while (arrived < count && Date.now() < deadline) {
    if (ledger.calls('meta') !== calls) {
      calls = ledger.calls('meta');
      arrived = ledger.list('meta').filter((entry) => entry.key.includes(`|Lead|${prefix}-`)).length;
    }
    if (arrived < count) await sleep(200);
  }
  return arrived;
}

interface EventsSetup {
  url: string;
  key: string;
  ledger: Ledger;
  traceDir: string;
  workerPid: string;
}

/** (a) once: batched requests then single events, each counted over its own window. */
async function eventsRound(setup: EventsSetup): Promise<Measured[]> {
  const shapes = [
    { label: `${EVENTS.toLocaleString('en-US')} events in 500-event requests`, events: EVENTS, perRequest: 500, concurrency: 8 },
    {
      label: `${SINGLE_EVENTS.toLocaleString('en-US')} events as single-event requests`,
      events: SINGLE_EVENTS,
      perRequest: 1,
      concurrency: 64,
    },
  ];
  const measured: Measured[] = [];
  for (const shape of shapes) {
    if (shape.events <= 0) continue;
    setup.ledger.reset();
    const before = snapshot(setup.traceDir);
    const prefix = `cost${Date.now()}`;
    const started = performance.now();
    const ingest = await load({
      url: setup.url,
      key: setup.key,
      perRequest: shape.perRequest,
      concurrency: shape.concurrency,
      events: shape.events,
      prefix,
    });
    const arrived = await arrivals(setup.ledger, prefix, ingest.events);
    const seconds = (performance.now() - started) / 1000;
    await sleep(SETTLE_MS);
    measured.push({
      label: shape.label,
      events: ingest.events,
      arrived,
      seconds,
      byProcess: windowOf(before, snapshot(setup.traceDir)),
      workerPid: setup.workerPid,
    });
  }
  return measured;
}

/** A document of the emulator read over REST as its owner: not through the traced client, so not counted. */
async function emulatorField(docPath: string, field: string): Promise<string | undefined> {
  const project = process.env.FIREBASE_PROJECT_ID || 'demo-signalbridge';
  const response = await fetch(
    `http://${process.env.FIRESTORE_EMULATOR_HOST}/v1/projects/${project}/databases/(default)/documents/${docPath}`,
    {
      headers: { Authorization: 'Bearer owner' },
    },
  );
  if (!response.ok) return undefined;
  const body = (await response.json()) as { fields?: Record<string, { stringValue?: string; integerValue?: string }> };
  return body.fields?.[field]?.stringValue ?? body.fields?.[field]?.integerValue;
}

async function settledRun(orgId: string, connectionId: string, runId: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await emulatorField(`organizations/${orgId}/connections/${connectionId}/runs/${runId}`, 'outcome');
    if (outcome && outcome !== 'running') return outcome;
    if (Date.now() > deadline) throw new Error(`The run ${runId} did not settle within ${timeoutMs / 1000} s.`);
    await sleep(250);
  }
}

/** (b) A two-year backfill of one account into Mixpanel through a fresh worker, counted from its start to its end. */
async function backfill(
  traceDir: string,
  platforms: import('@/sandbox/platforms').FakePlatforms,
): Promise<Measured & { outcome: string; rows: number }> {
  const { setUpConnection } = await import('@/tests/api/helpers/connections');
  const { startRun } = await import('@/lib/server/sync/scheduler');
  const { startBackfill } = await import('@/lib/server/services/connections');
  const { addDays, toDay } = await import('@/lib/shared/connections/windows');
  const { startWorker } = await import('@/scripts/lib/worker');
  platforms.adData.configure(SHAPE);
  const setup = await setUpConnection({
    serviceAccountKey: platforms.serviceAccountKey,
    destination: 'mixpanel',
    accountIds: [ACCOUNT],
    level: 'ad_group',
    lookbackDays: 3,
    plan: 'scale',
  });
  const worker = startWorker({ SYNC_TICK_MS: '0' }, { quiet: true });
  try {
    const warmId = (await startRun(setup.orgId, setup.connectionId, 'manual'))!;
    await settledRun(setup.orgId, setup.connectionId, warmId, 180_000);
    await sleep(SETTLE_MS);
    const before = snapshot(traceDir);
    const started = performance.now();
    const { runId } = await startBackfill(
      setup.orgId,
      'scale',
      setup.owner.uid,
      setup.connectionId,
      addDays(toDay(Date.now()), -BACKFILL_DAYS),
    );
    const outcome = await settledRun(setup.orgId, setup.connectionId, runId, 600_000);
    const seconds = (performance.now() - started) / 1000;
    await sleep(SETTLE_MS);
    const rows = Number(
      await emulatorField(`organizations/${setup.orgId}/connections/${setup.connectionId}/runs/${runId}`, 'rows_written').catch(() => NaN),
    );
    return {
      label: `a ${BACKFILL_DAYS}-day backfill of one account (100 rows a day) into Mixpanel`,
      events: 1,
      arrived: 1,
      seconds,
      byProcess: windowOf(before, snapshot(traceDir)),
      workerPid: String(worker.child.pid),
      backfill: true,
      outcome,
      rows,
    };
  } finally {
    await worker.stop();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs (a) and (b) on a stack of their own and prints their tables. */
export async function benchCost() {
  const ports = portsFromEnv(TEST_PORTS);
  const started = performance.now();
  const stack = await startStack(ports);
  console.log(
    `\nCost of a million events (Firestore and Pub/Sub, counted at our boundary); emulator stack cold start: ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const traceDir = mkdtempSync(path.join(tmpdir(), 'bench-cost-'));
  Object.assign(process.env, stack.env, {
    RATE_LIMIT_SUBMISSIONS_PER_KEY_PER_SECOND: '1000000000',
    COST_TRACE_DIR: traceDir,
    // Ingest logs a line per request at info: tens of thousands here.
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
  });
  try {
    const { platformsEnv, startFakePlatforms } = await import('@/sandbox/platforms');
    const platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
    Object.assign(process.env, platformsEnv(platforms));
    const { setUpConversion } = await import('@/tests/api/helpers/conversions');
    const { rotateSubmissionKey } = await import('@/lib/server/repos/apps');
    const { serveHandler } = await import('@/tests/api/helpers/server');
    const submissions = await import('@/pages/api/submissions');
    const { ensureTopology } = await import('@/lib/server/queue/pubsub');
    const { startWorker } = await import('@/scripts/lib/worker');

    const conversion = await setUpConversion('meta_ads');
    const { key } = await rotateSubmissionKey(conversion.orgId, conversion.appId);
    await ensureTopology();
    const route = await serveHandler(submissions.default, submissions.config as import('next').PageConfig);
    const worker = startWorker({}, { quiet: true });
    const rounds: Measured[][] = [];
    try {
      // Warm-up: one Meta batch, which also waits for the worker to pull.
      const warm = `warm${Date.now()}`;
      await load({ url: route.url, key, perRequest: 500, concurrency: 2, events: 1000, prefix: warm });
      if ((await arrivals(platforms.conversions, warm, 1000)) < 1000) throw new Error('The worker delivered nothing (is the stack up?).');
      await sleep(SETTLE_MS);
      const setup = { url: route.url, key, ledger: platforms.conversions, traceDir, workerPid: String(worker.child.pid) };
      for (let round = 0; round < ROUNDS; round++) rounds.push(await eventsRound(setup));
    } finally {
      await worker.stop();
      await route.close();
    }
    const long = await backfill(traceDir, platforms);
    await platforms.close();
    print(rounds, long);
  } finally {
    await stack.stop();
  }
}

function print(rounds: Measured[][], long: Measured & { outcome: string; rows: number }) {
  for (const [index, shape] of rounds[0]!.entries()) {
    const runs = rounds.map((round) => round[index]!);
    const tables = runs.map((run) => stageRows(run));
    const medians = tables[0]!.map((row, r) => ({
      ...row,
      values: row.values.map((_, c) => median(tables.map((table) => table[r]!.values[c]!))),
    }));
    const run = runs[0]!;
    console.log(
      `\n(a) ${shape.label} → one worker → Meta: ${runs.map((one) => `${fmt(one.arrived)} of ${fmt(one.events)} arrived in ${one.seconds.toFixed(1)} s (${fmt(one.events / one.seconds)} events/s)`).join('; ')}` +
        `${runs.length > 1 ? `; the median of ${runs.length} rounds` : ''}. Per 1,000,000 events:`,
    );
    console.log(costTable(medians, `per 1,000,000 events`));
    console.log(costOf(medians, 'per 1,000,000 events'));
    if (runs.length > 1)
      for (const [r, table] of tables.entries())
        console.log(`  round ${r + 1}: ${table.map((row) => `${row.stage} ${row.values.map(fmt).join('/')}`).join('; ')}`);
    console.log(`Documents and queries behind it (per 1,000,000 events, first round):\n${perMillion(run)}`);
  }
  const rows = stageRows(long, true);
  console.log(
    `\n(b) ${long.label}: ${long.outcome}, ${fmt(long.rows)} rows written in ${long.seconds.toFixed(1)} s. Per account and backfill (all of it "sync" but the worker's pollers):`,
  );
  console.log(costTable(rows, 'per account'));
  console.log(costOf(rows, 'per account'));
  console.log(`Documents and queries behind it (per account):\n${perMillion(long, true)}`);
}
