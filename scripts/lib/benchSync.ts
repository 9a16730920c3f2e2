/**
 * Section 7 of `npm run bench` (`npm run bench -- --only sync` runs it alone): connection syncs, a
 * historical backfill end to end on a stack of its own (own emulator ports, so it can run beside
 * `npm test` or the other sections), through one worker process (scripts/lib/worker.ts).
 *
 * The data: the sandbox's three Google Ads client accounts (1234567890 and 2345678901 through their
 * manager, 5556667778 direct), each with 50 campaigns × 2 ad groups (1 ad each: the ad-group rows are
 * the same, the fake hashes less), read at ad-group level: 100 rows per account and day. A backfill
 * is one job per account × 30-day chunk on the backfill queue. Each destination (the sandbox's
 * BigQuery and Mixpanel) gets a 2-year backfill (BENCH_SYNC_DAYS, default 730) and a 6-month one
 * (BENCH_SYNC_SHORT_DAYS, default 182), each on a fresh connection (a fresh BigQuery table) and a
 * fresh worker, so the worker's peak memory of each range can be read apart:
 *
 * - rows written, wall time and rows/s from the run record (getRun) and the time its last job settled;
 * - ad-platform calls (searchStream requests the sandbox served, and the run record's calls less the
 *   destination's) beside the floor of one query per account × chunk; destination calls, for Mixpanel
 *   beside Σ ⌈chunk rows / 2,000⌉ (its import limit), for BigQuery per chunk;
 * - the worker's peak memory: VmHWM of /proc/<pid>/status, reset (clear_refs 5) after a warm-up run
 *   so that module loading is not what it reports, and the highest VmRSS sampled every 200 ms;
 * - CPU seconds per process (this process hosts the sandbox, so the fakes' own work shows here).
 *
 * The baseline of rows/s, measured in the same run: the same rows (same accounts, chunks, level)
 * pushed through the same writer (`writer.replace`, the code a job ends in) directly in this
 * process, against the same fake, into a fresh table / connection: the ad-platform read is done
 * before each timed write, and there is no Pub/Sub, no Firestore (no run-document reads and writes, no
 * session opening, no chart days), no second process, and one chunk at a time. The ratio is
 * then what the engine keeps of what the destination alone could take.
 *
 * A backfill still running after its cap (BENCH_SYNC_BIGQUERY_CAP_SECONDS, default 120;
 * BENCH_SYNC_MIXPANEL_CAP_SECONDS, default 240) is cancelled and reported as partial: the sandbox's
 * BigQuery MERGE visits every row of the table (a hash join on the key, but a full scan), so its cost
 * grows with the table. The baseline then writes the same chunks the engine finished, and the whole
 * backfill's time is estimated from the baseline's MERGE times.
 * Jobs in flight at once are read from the run record (a job begun, attempts ≥ 1, not yet settled).
 * Token refreshes per backfill are what the fakes counted per login (sandbox/store.ts `refreshes`) from
 * the fresh worker's warm-up run to the backfill's end: one per login when sessions are kept.
 */
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RunJob } from '@/lib/shared/connections/connection';
import type { FakePlatforms } from '@/sandbox/platforms';
import { cpuMeter, cpuText, emulatorProcesses, memoryOf, resetPeak, rssSampler } from '@/scripts/lib/benchProcess';
import { portsFromEnv, startStack, type StackPorts } from '@/scripts/lib/stack';
import type { ConnectionSetup } from '@/tests/api/helpers/connections';

/** Ports of this section's stack: neither the dev stack's nor the tests' (TEST_PORTS) nor section 6's. */
const SYNC_PORTS: StackPorts = { auth: 9399, firestore: 8380, hub: 4430, logging: 4530, pubsub: 8385 };
const ACCOUNTS = ['1234567890', '2345678901', '5556667778'];
const SHAPE = { campaigns: 50, adGroupsPerCampaign: 2, adsPerAdGroup: 1 };
const LONG_DAYS = Number(process.env.BENCH_SYNC_DAYS || 730);
const SHORT_DAYS = Number(process.env.BENCH_SYNC_SHORT_DAYS || 182);
/** A backfill still running after this long is cancelled and reported as partial (BigQuery; Mixpanel's is a safety net). */
const CAP_MS: Record<'bigquery' | 'mixpanel', number> = {
  bigquery: Number(process.env.BENCH_SYNC_BIGQUERY_CAP_SECONDS || 120) * 1000,
  mixpanel: Number(process.env.BENCH_SYNC_MIXPANEL_CAP_SECONDS || 240) * 1000,
};
/** The worker's SYNC_CONCURRENCY for the main runs, and the value one extra run compares it with. */
const CONCURRENCY = 4;
const OTHER_CONCURRENCY = 16;
const MIXPANEL_BATCH = 2000;
const POLL_MS = 250;

type Destination = 'bigquery' | 'mixpanel';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (kb: number) => (Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MB` : 'n/a');
const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}×`;

// ——— what the sandbox serves (it runs in this process) ———

interface KindStats {
  count: number;
  ms: number;
  maxInFlight: number;
  inFlight: number;
  durations: number[];
}

const KINDS = [
  'Google Ads searchStream',
  'Google token',
  'BigQuery query job',
  'BigQuery load',
  'BigQuery other',
  'Mixpanel import',
  'other',
] as const;
type Kind = (typeof KINDS)[number];

function kindOf(method: string, path: string): Kind {
  if (/\/googleAds:searchStream$/.test(path)) return 'Google Ads searchStream';
  if (path === '/google/token') return 'Google token';
  if (path.startsWith('/bigquery/upload/')) return 'BigQuery load';
  if (method === 'POST' && /^\/bigquery\/bigquery\/v2\/projects\/[^/]+\/jobs$/.test(path)) return 'BigQuery query job';
  if (path.startsWith('/bigquery/')) return 'BigQuery other';
  if (/^\/mixpanel\/\w+\/import$/.test(path)) return 'Mixpanel import';
  return 'other';
}

/**
 * Every request the sandbox's HTTP server answers, by kind: count, time inside (request start →
 * response closed), the most in flight at once. Through Node's http diagnostics channel, so the
 * sandbox is not touched; a query job's time is the fake's MERGE (it runs inside jobs.insert).
 */
function sandboxMeter() {
  const stats = new Map<Kind, KindStats>(KINDS.map((kind) => [kind, { count: 0, ms: 0, maxInFlight: 0, inFlight: 0, durations: [] }]));
  const onStart = (message: unknown) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    const kind = kindOf(request.method ?? 'GET', new URL(request.url ?? '/', 'http://sandbox.local').pathname);
    const entry = stats.get(kind)!;
    entry.count += 1;
    entry.inFlight += 1;
    entry.maxInFlight = Math.max(entry.maxInFlight, entry.inFlight);
    const started = performance.now();
    response.once('close', () => {
      const ms = performance.now() - started;
      entry.inFlight -= 1;
      entry.ms += ms;
      entry.durations.push(ms);
    });
  };
  diagnostics.subscribe('http.server.request.start', onStart);
  return {
    /** What was served from now on (the most in flight counts from now on too). */
    window() {
      const before = new Map([...stats].map(([kind, entry]) => [kind, { ...entry, durations: entry.durations.length }]));
      for (const entry of stats.values()) entry.maxInFlight = entry.inFlight;
      return () =>
        new Map(
          [...stats].map(([kind, entry]) => {
            const start = before.get(kind)!;
            return [
              kind,
              {
                count: entry.count - start.count,
                ms: entry.ms - start.ms,
                maxInFlight: entry.maxInFlight,
                durations: entry.durations.slice(start.durations),
              },
            ] as const;
          }),
        );
    },
    /** Waits until the sandbox answers nothing (a MERGE a stopped worker left runs on in this process). */
    async idle(timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      while ([...stats.values()].some((entry) => entry.inFlight > 0) && Date.now() < deadline) await sleep(100);
    },
    stop: () => diagnostics.unsubscribe('http.server.request.start', onStart),
  };
}

type SandboxWindow = ReturnType<ReturnType<ReturnType<typeof sandboxMeter>['window']>>;

// ——— the measurements ———

interface Context {
  ports: StackPorts;
  platforms: FakePlatforms;
  meter: ReturnType<typeof sandboxMeter>;
}

interface Measured {
  destination: Destination;
  days: number;
  concurrency: number;
  from: string;
  to: string;
  jobsTotal: number;
  jobsDone: number;
  complete: boolean;
  outcome: string;
  rowsRead: number;
  rowsWritten: number;
  runCalls: number;
  /** From the start of the backfill to the poll that saw its last settled job. */
  wallMs: number;
  /** Σ of the jobs' own durations (read + write): above the wall time, jobs overlapped. */
  jobMs: number;
  maxJobMs: number;
  /** The most jobs seen begun and not yet settled at one poll of the run record. */
  maxInFlight: number;
  /** Attempts beyond one per settled job (retries: a read or write that failed and came again). */
  retries: number;
  /** Jobs settled or in flight (each reads its window once unless retried). */
  jobsBegun: number;
  /** Destination calls: Mixpanel's import calls (the fake's count), BigQuery requests the sandbox served. */
  destinationCalls: number;
  /** Σ ⌈rows / 2,000⌉ over the chunks written (Mixpanel's floor). */
  mixpanelFloor: number;
  served: SandboxWindow;
  idleRssKb: number;
  hwmKb: number;
  sampledPeakKb: number;
  peakReset: boolean;
  cpu: string;
  /** Rows of the backfill window the destination holds for the connection afterwards. */
  held: number;
  /** Token refreshes the fakes counted (refresh grants, service-account assertions) over the warm-up run and the backfill, and the logins they were for. */
  refreshes: { refreshes: number; logins: number };
  /** The settled jobs, in the order the queue handed them out (account-major, oldest chunk first). */
  doneJobs: RunJob[];
}

type Modules = {
  setUpConnection: typeof import('@/tests/api/helpers/connections').setUpConnection;
  repo: typeof import('@/lib/server/repos/connections');
  ledger: typeof import('@/lib/server/repos/ledger');
  services: typeof import('@/lib/server/services/connections');
  scheduler: typeof import('@/lib/server/sync/scheduler');
  runner: typeof import('@/lib/server/sync/runner');
  credentials: typeof import('@/lib/server/credentials');
  registry: typeof import('@/lib/server/connectors/registry');
  windows: typeof import('@/lib/shared/connections/windows');
  startWorker: typeof import('@/scripts/lib/worker').startWorker;
  SANDBOX_MIXPANEL: typeof import('@/sandbox/platforms').SANDBOX_MIXPANEL;
};

async function modules(): Promise<Modules> {
  return {
    setUpConnection: (await import('@/tests/api/helpers/connections')).setUpConnection,
    repo: await import('@/lib/server/repos/connections'),
    ledger: await import('@/lib/server/repos/ledger'),
    services: await import('@/lib/server/services/connections'),
    scheduler: await import('@/lib/server/sync/scheduler'),
    runner: await import('@/lib/server/sync/runner'),
    credentials: await import('@/lib/server/credentials'),
    registry: await import('@/lib/server/connectors/registry'),
    windows: await import('@/lib/shared/connections/windows'),
    startWorker: (await import('@/scripts/lib/worker')).startWorker,
    SANDBOX_MIXPANEL: (await import('@/sandbox/platforms')).SANDBOX_MIXPANEL,
  };
}

const newSetup = (m: Modules, ctx: Context, destination: Destination) =>
  m.setUpConnection({
    serviceAccountKey: ctx.platforms.serviceAccountKey,
    destination,
    accountIds: ACCOUNTS,
    level: 'ad_group',
    lookbackDays: 3,
    plan: 'scale',
  });

/** Rows of `from`..`to` the destination holds for a connection. */
async function heldRows(
  m: Modules,
  ctx: Context,
  setup: ConnectionSetup,
  destination: Destination,
  from: string,
  to: string,
): Promise<number> {
  const inWindow = (date: unknown) => String(date) >= from && String(date) <= to;
  if (destination === 'mixpanel') {
    return ctx.platforms.mixpanel
      .events(m.SANDBOX_MIXPANEL.projects.US.id, 'Ad Data')
      .filter((event) => event.properties.connection_id === setup.connectionId && inWindow(event.properties.date)).length;
  }
  const connection = await m.repo.getConnection(setup.orgId, setup.connectionId);
  return ctx.platforms.bigquery
    .rows(connection.destination.projectId, setup.dataset, setup.table)
    .filter((row) => row.connection_id === setup.connectionId && inWindow(row.date)).length;
}

const destinationCallsOf = (served: SandboxWindow, destination: Destination) =>
  destination === 'mixpanel'
    ? served.get('Mixpanel import')!.count
    : served.get('BigQuery query job')!.count + served.get('BigQuery load')!.count + served.get('BigQuery other')!.count;

/**
 * One backfill through a fresh worker: a warm-up run (the lookback window) loads every module and
 * proves the worker pulls; then the peak is reset and the backfill measured until its last job settles
 * (or the cap: then it is cancelled and what settled is reported).
 */
async function measureBackfill(m: Modules, ctx: Context, destination: Destination, days: number, concurrency: number): Promise<Measured> {
  const setup = await newSetup(m, ctx, destination);
  const worker = m.startWorker({ SYNC_CONCURRENCY: String(concurrency), SYNC_TICK_MS: '0', PAYMENTS_POLL_MS: '3600000' }, { quiet: true });
  const pid = worker.child.pid!;
  try {
    // The fresh worker opens each login at its warm-up run; a backfill after it should refresh none again.
    ctx.platforms.refreshes.reset();
    const warmId = (await m.scheduler.startRun(setup.orgId, setup.connectionId, 'manual'))!;
    const warmDeadline = Date.now() + 180_000;
    while ((await m.ledger.getRun(setup.orgId, setup.connectionId, warmId)).outcome === 'running') {
      if (Date.now() > warmDeadline) throw new Error('The sync worker finished no warm-up run within three minutes (is the stack up?).');
      await sleep(POLL_MS);
    }
    const idleRssKb = memoryOf(pid).rss;
    const peakReset = resetPeak(pid);
    const sampled = rssSampler(pid);
    const cpu = cpuMeter({
      'this process (sandbox fakes, polling)': [process.pid],
      ...(pid ? { 'sync worker': [pid] } : {}),
      ...emulatorProcesses(ctx.ports),
    });
    const served = ctx.meter.window();
    const mixpanelCallsBefore = ctx.platforms.mixpanel.importCalls(m.SANDBOX_MIXPANEL.projects.US.id);

    const from = m.windows.addDays(m.windows.toDay(Date.now()), -days);
    const started = performance.now();
    const { runId } = await m.services.startBackfill(setup.orgId, 'scale', setup.owner.uid, setup.connectionId, from);
    let run = await m.ledger.getRun(setup.orgId, setup.connectionId, runId);
    let settledAt = started;
    let seen = 0;
    let capped = false;
    let maxInFlight = 0;
    while (run.outcome === 'running') {
      await sleep(POLL_MS);
      run = await m.ledger.getRun(setup.orgId, setup.connectionId, runId);
      if (run.jobsDone !== seen) {
        seen = run.jobsDone;
        settledAt = performance.now();
      }
      maxInFlight = Math.max(maxInFlight, Object.values(run.jobs).filter((job) => job.status === 'pending' && job.attempts > 0).length);
      if (run.outcome === 'running' && performance.now() - started > CAP_MS[destination]) {
        capped = true;
        break;
      }
    }
    const window = served();
    const { hwm } = memoryOf(pid);
    const sampledPeakKb = sampled();
    const cpuUse = cpuText(cpu());
    if (capped) await m.services.cancelBackfill(setup.orgId, setup.connectionId);
    const jobs = Object.values(run.jobs);
    const doneJobs = jobs
      .filter((job) => job.status === 'done')
      .sort((a, b) => ACCOUNTS.indexOf(a.accountId) - ACCOUNTS.indexOf(b.accountId) || a.from.localeCompare(b.from));
    const destinationCalls =
      destination === 'mixpanel'
        ? ctx.platforms.mixpanel.importCalls(m.SANDBOX_MIXPANEL.projects.US.id) - mixpanelCallsBefore
        : destinationCallsOf(window, destination);
    return {
      destination,
      days,
      concurrency,
      from: run.from,
      to: run.to,
      jobsTotal: run.jobsTotal,
      jobsDone: run.jobsDone,
      complete: !capped,
      outcome: run.outcome,
      rowsRead: run.rowsRead,
      rowsWritten: run.rowsWritten,
      runCalls: run.calls,
      wallMs: settledAt - started,
      jobMs: jobs.reduce((sum, job) => sum + job.durationMs, 0),
      maxJobMs: Math.max(0, ...jobs.map((job) => job.durationMs)),
      maxInFlight,
      retries: jobs.reduce((sum, job) => sum + job.attempts, 0) - jobs.filter((job) => job.attempts > 0).length,
      jobsBegun: jobs.filter((job) => job.attempts > 0).length,
      destinationCalls,
      mixpanelFloor: doneJobs.reduce((sum, job) => sum + Math.ceil(job.rowsWritten / MIXPANEL_BATCH), 0),
      served: window,
      idleRssKb,
      hwmKb: peakReset ? hwm : NaN,
      sampledPeakKb,
      peakReset,
      cpu: cpuUse,
      held: await heldRows(m, ctx, setup, destination, run.from, run.to),
      refreshes: ctx.platforms.refreshes.count(),
      doneJobs,
    };
  } finally {
    await worker.stop();
    await ctx.meter.idle();
  }
}

interface Bare {
  rows: number;
  writeMs: number;
  /** The untimed reads of the same chunks, timed apart: what the writer alone leaves out. */
  readMs: number;
  chunks: number;
  complete: boolean;
  /** Rows in the destination before the first chunk (the lookback window written first). */
  warmRows: number;
  /** Per chunk written: its rows and the time of its replace. */
  writes: Array<{ rows: number; ms: number }>;
}

/**
 * The baseline: `chunks` (account × window) read from the sandbox untimed, then each written with
 * the writer's replace in this process, timed; into a fresh connection (a fresh BigQuery table),
 * after an untimed write of the lookback window (as the engine's warm-up run wrote it).
 */
async function bareWriter(
  m: Modules,
  ctx: Context,
  destination: Destination,
  chunks: Array<Pick<RunJob, 'accountId' | 'from' | 'to'>>,
): Promise<Bare> {
  const setup = await newSetup(m, ctx, destination);
  const connection = await m.repo.getConnection(setup.orgId, setup.connectionId);
  const { session: sourceSession, integration: source } = await m.credentials.openSessionOf(setup.orgId, 'source', setup.sourceId);
  const { session, integration } = await m.credentials.openSessionOf(setup.orgId, 'destination', setup.destinationId);
  const writer = m.registry.connectorFor(integration.platform).writer!;
  const target = m.runner.writeTargetOf(connection, integration.settings);
  const write = async ({ accountId, from, to }: Pick<RunJob, 'accountId' | 'from' | 'to'>) => {
    const account = source.accounts.find((candidate) => candidate.id === accountId)!;
    const reading = performance.now();
    const rows = await m.runner.readWindow(sourceSession, 'google_ads', { account, level: 'ad_group', from, to });
    const started = performance.now();
    await writer.replace(session, target, { connectionId: connection.id, platform: 'google_ads', accountId, from, to }, rows);
    return { rows: rows.length, ms: performance.now() - started, readMs: started - reading };
  };
  const lookback = m.windows.lookbackWindow(3);
  let warmRows = 0;
  for (const accountId of ACCOUNTS) warmRows += (await write({ accountId, ...lookback })).rows;
  const result: Bare = { rows: 0, writeMs: 0, readMs: 0, chunks: 0, complete: true, warmRows, writes: [] };
  for (const chunk of chunks) {
    if (result.writeMs > CAP_MS[destination]) {
      result.complete = false;
      break;
    }
    const written = await write(chunk);
    result.rows += written.rows;
    result.writeMs += written.ms;
    result.readMs += written.readMs;
    result.chunks += 1;
    result.writes.push({ rows: written.rows, ms: written.ms });
  }
  return result;
}

// ——— reporting ———

const LABEL: Record<Destination, string> = { bigquery: 'BigQuery', mixpanel: 'Mixpanel' };
const rate = (rows: number, ms: number) => (rows * 1000) / ms;
const rangeOf = (run: Measured) => `${run.days} d (${run.from} … ${run.to})`;

function row(run: Measured, bare?: Bare) {
  const searchStream = run.served.get('Google Ads searchStream')!.count;
  const ownRate = rate(run.rowsWritten, run.wallMs);
  const destination =
    run.destination === 'mixpanel'
      ? `${fmt(run.destinationCalls)} imports vs Σ⌈rows/2,000⌉ ${fmt(run.mixpanelFloor)} (${ratio(run.destinationCalls, run.mixpanelFloor)})`
      : `${fmt(run.destinationCalls)} requests (${(run.destinationCalls / Math.max(1, run.jobsDone)).toFixed(1)} per chunk)`;
  return [
    `${LABEL[run.destination]}, ${run.concurrency === CONCURRENCY ? '' : `SYNC_CONCURRENCY=${run.concurrency}, `}${rangeOf(run)}`,
    `${fmt(run.jobsDone)} / ${fmt(run.jobsTotal)}${run.complete ? '' : ' (capped)'}`,
    fmt(run.rowsWritten),
    secs(run.wallMs),
    `${fmt(ownRate)}${bare ? ` (${ratio(ownRate, rate(bare.rows, bare.writeMs))} bare)` : ''}`,
    `${fmt(searchStream)} vs ${fmt(run.jobsBegun)}${run.complete ? '' : ' begun'} (${ratio(searchStream, run.jobsBegun)})`,
    destination,
    `${run.refreshes.refreshes} vs ${run.refreshes.logins}`,
    `${mb(run.hwmKb)} / ${mb(run.sampledPeakKb)} (idle ${mb(run.idleRssKb)})`,
  ];
}

function notes(run: Measured) {
  const served = run.served;
  const stream = served.get('Google Ads searchStream')!;
  const merge = served.get('BigQuery query job')!;
  const destinationMs =
    run.destination === 'mixpanel'
      ? served.get('Mixpanel import')!.ms
      : merge.ms + served.get('BigQuery load')!.ms + served.get('BigQuery other')!.ms;
  const lines = [
    `${LABEL[run.destination]} ${run.days} d${run.concurrency === CONCURRENCY ? '' : ` (SYNC_CONCURRENCY=${run.concurrency})`}: run ${run.outcome}${run.complete ? '' : ` at the ${secs(CAP_MS[run.destination])} cap — cancelled`}; ` +
      `rows read ${fmt(run.rowsRead)}, written ${fmt(run.rowsWritten)}, the destination holds ${fmt(run.held)} of the window; ` +
      (run.complete
        ? `run record calls ${fmt(run.runCalls)} = ad platform ${fmt(run.runCalls - run.destinationCalls)} + destination ${fmt(run.destinationCalls)}; `
        : `run record calls ${fmt(run.runCalls)} (settled jobs; the destination also holds rows of chunks in flight at the cap); `) +
      `sandbox time: searchStream ${secs(stream.ms)}, destination ${secs(destinationMs)}; ` +
      `token refreshes (warm-up run + backfill, one worker) ${run.refreshes.refreshes} for ${run.refreshes.logins} login${run.refreshes.logins === 1 ? '' : 's'} (${run.jobsDone + 1} jobs' worth of openings); ` +
      `jobs' own time (read + write) Σ ${secs(run.jobMs)} over ${secs(run.wallMs)} of wall, ${secs(run.jobMs / Math.max(1, run.jobsDone))} per chunk inside the job vs ${secs(run.wallMs / Math.max(1, run.jobsDone))} per chunk of wall; ` +
      `up to ${run.maxInFlight} backfill jobs in flight at once (run record), ${run.retries} job retries.`,
    `  CPU: ${run.cpu}.${run.peakReset ? '' : ' (VmHWM could not be reset: it includes start-up.)'}`,
  ];
  if (run.destination === 'bigquery' && merge.durations.length) {
    const list = merge.durations;
    const pick = [0, 1, 2, Math.floor(list.length / 2), list.length - 2, list.length - 1].filter(
      (index, position, all) => index >= 0 && index < list.length && all.indexOf(index) === position,
    );
    lines.push(
      `  the fake's MERGE (one per chunk, table growing ~${fmt(run.rowsWritten / Math.max(1, run.jobsDone))} rows each): ${pick.map((index) => `#${index + 1} ${secs(list[index]!)}`).join(', ')}; Σ ${secs(merge.ms)} of ${secs(run.complete ? run.wallMs : CAP_MS.bigquery)}${run.complete ? '' : ' before the cap'}.`,
    );
  }
  return lines;
}

/**
 * What the writes of a whole capped BigQuery backfill would take against the fake: the baseline's
 * sequential replace times fitted to c × table rows × staged rows (the MERGE's nested loop), summed
 * over every chunk of the run with its average chunk size. The engine's own overhead comes on top.
 */
function wholeWriteEstimateMs(run: Measured, bare: Bare): number | null {
  if (run.complete || bare.writes.length < 2) return null;
  let table = bare.warmRows;
  let product = 0;
  for (const write of bare.writes) {
    product += Math.max(1, table) * write.rows;
    table += write.rows;
  }
  const c = bare.writeMs / product;
  const staged = bare.rows / bare.chunks;
  let total = 0;
  for (let index = 0; index < run.jobsTotal; index++) total += c * Math.max(1, bare.warmRows + index * staged) * staged;
  return total;
}

/** Runs the backfills and their baselines on a stack of its own and prints their table. */
export async function benchSync() {
  const ports = portsFromEnv(SYNC_PORTS);
  const sectionStarted = performance.now();
  const stack = await startStack(ports);
  console.log(
    `\nConnection syncs: Google Ads (3 accounts × ${SHAPE.campaigns} campaigns × ${SHAPE.adGroupsPerCampaign} ad groups, ad-group level) → BigQuery / Mixpanel sandbox; ` +
      `emulator stack cold start: ${secs(performance.now() - sectionStarted)}`,
  );
  Object.assign(process.env, stack.env);
  const { platformsEnv, startFakePlatforms } = await import('@/sandbox/platforms');
  const platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  const meter = sandboxMeter();
  try {
    platforms.adData.configure(SHAPE);
    const m = await modules();
    await (await import('@/lib/server/queue/pubsub')).ensureTopology();
    const ctx: Context = { ports, platforms, meter };
    const runs: Measured[] = [];
    const bares = new Map<Measured, Bare>();
    for (const destination of ['mixpanel', 'bigquery'] as const) {
      const short = await measureBackfill(m, ctx, destination, SHORT_DAYS, CONCURRENCY);
      const long = await measureBackfill(m, ctx, destination, LONG_DAYS, CONCURRENCY);
      runs.push(short, long);
      bares.set(long, await bareWriter(m, ctx, destination, long.doneJobs));
    }
    // SYNC_CONCURRENCY is the scheduled and manual jobs' parallelism; backfill jobs have their own queue.
    runs.push(await measureBackfill(m, ctx, 'mixpanel', SHORT_DAYS, OTHER_CONCURRENCY));

    console.log(
      [
        '| backfill | chunks done | rows written | wall | rows/s (÷ bare writer, same rows) | Google Ads calls vs floor (1 per account × chunk) | destination calls | token refreshes vs logins | worker peak: VmHWM / sampled RSS |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...runs.map((run) => `| ${row(run, bares.get(run)).join(' | ')} |`),
      ].join('\n'),
    );
    for (const run of runs) console.log(notes(run).join('\n'));
    for (const [run, bare] of bares) {
      console.log(
        `Baseline for ${LABEL[run.destination]} ${run.days} d: the same ${fmt(bare.chunks)} chunks (${fmt(bare.rows)} rows) read beforehand and pushed through writer.replace in this process, ` +
          `no Pub/Sub, Firestore or worker: ${fmt(rate(bare.rows, bare.writeMs))} rows/s (${secs(bare.writeMs)} of writing${bare.complete ? '' : `, capped at ${bare.chunks} chunks`}); ` +
          `the engine ${fmt(rate(run.rowsWritten, run.wallMs))} rows/s = ${ratio(rate(run.rowsWritten, run.wallMs), rate(bare.rows, bare.writeMs))}. ` +
          `Reading those chunks from the Google Ads sandbox took ${secs(bare.readMs)} more, one at a time: read and write, ${fmt(rate(bare.rows, bare.readMs + bare.writeMs))} rows/s, ` +
          `of which the engine, running chunks side by side (SYNC_BACKFILL_CONCURRENCY), makes ${ratio(rate(run.rowsWritten, run.wallMs), rate(bare.rows, bare.readMs + bare.writeMs))}.`,
      );
    }
    const byKey = (destination: Destination, days: number, concurrency = CONCURRENCY) =>
      runs.find((run) => run.destination === destination && run.days === days && run.concurrency === concurrency)!;
    for (const destination of ['mixpanel', 'bigquery'] as const) {
      const [short, long] = [byKey(destination, SHORT_DAYS), byKey(destination, LONG_DAYS)];
      console.log(
        `Worker peak memory, ${LABEL[destination]}: ${SHORT_DAYS} d ${mb(short.hwmKb)} (sampled ${mb(short.sampledPeakKb)}, ${short.jobsDone} chunks) vs ${LONG_DAYS} d ${mb(long.hwmKb)} (sampled ${mb(long.sampledPeakKb)}, ${long.jobsDone} chunks)` +
          ` = ${ratio(long.hwmKb, short.hwmKb)} for ${ratio(long.rowsWritten, short.rowsWritten)} the rows.`,
      );
    }
    const bigLong = byKey('bigquery', LONG_DAYS);
    const estimate = wholeWriteEstimateMs(bigLong, bares.get(bigLong)!);
    if (estimate !== null) {
      const bare = bares.get(bigLong)!;
      console.log(
        `BigQuery ${LONG_DAYS} d did not finish: ${bigLong.jobsDone} of ${bigLong.jobsTotal} chunks in ${secs(bigLong.wallMs)}. The bare writer's chunk times ` +
          `(${bare.writes.map((write) => secs(write.ms)).join(', ')}) grow with the table (the fake's MERGE scans the whole table); ` +
          `fitted to that, the writes alone of all ${bigLong.jobsTotal} chunks would take ≈ ${(estimate / 60_000).toFixed(1)} min here (a rough fit) (an estimate; BENCH_SYNC_BIGQUERY_CAP_SECONDS raises the cap).`,
      );
    }
    const [usual, other] = [byKey('mixpanel', SHORT_DAYS), byKey('mixpanel', SHORT_DAYS, OTHER_CONCURRENCY)];
    console.log(
      `SYNC_CONCURRENCY does not change backfills: Mixpanel ${SHORT_DAYS} d took ${secs(usual.wallMs)} at ${CONCURRENCY} and ${secs(other.wallMs)} at ${OTHER_CONCURRENCY} ` +
        `(backfill chunks come from their own subscription and run SYNC_BACKFILL_CONCURRENCY at once (default 6), organizations taking turns and at most 2 per ad account; SYNC_CONCURRENCY sizes only the scheduled and manual jobs' subscription). ` +
        `At most ${Math.max(...runs.map((run) => run.maxInFlight))} backfill jobs were seen in flight at once in this run (run record; attempts are recorded with the run's next write, within a second).`,
    );
    console.log(`Section time: ${secs(performance.now() - sectionStarted)}.`);
  } finally {
    meter.stop();
    await platforms.close();
    await stack.stop();
  }
}
