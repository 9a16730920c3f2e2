import type { AdRow } from '@/lib/shared/connections/rows';
import { adRowKey } from '@/lib/shared/connections/rows';
import { addDays, daysInclusive, toDay } from '@/lib/shared/connections/windows';
import { connectorFor } from '@/lib/server/connectors/registry';
import { openSessionOf } from '@/lib/server/credentials';
import { getConnection } from '@/lib/server/repos/connections';
import { getRun } from '@/lib/server/repos/ledger';
import { getIntegration } from '@/lib/server/repos/integrations';
import { resumeConnections, startBackfill } from '@/lib/server/services/connections';
import { reconnectIntegration } from '@/lib/server/services/integrations';
import { startRun, tick } from '@/lib/server/sync/scheduler';
import { readWindow } from '@/lib/server/sync/runner';
import { consentTo, platformsEnv, SANDBOX_MIXPANEL, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { runFinished, setUpConnection, type ConnectionSetup } from '@/tests/api/helpers/connections';
import { untilValue } from '@/tests/api/helpers/until';

// The sync worker as a process, against the Pub/Sub emulator, Firestore and the sandbox: what a run
// wrote is read back from the sandbox's BigQuery and Mixpanel and compared, key by key, with what
// the platform reports for the same days.
jest.setTimeout(300_000);

let platforms: FakePlatforms;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
});
// Declared before the reset below: Jest runs a block's afterEach hooks in order, so workers stop first.
const worker = workerProcesses({ SYNC_JOB_ATTEMPTS: '1' });
afterEach(() => {
  platforms.adData.reset();
});
afterAll(() => platforms.close());

const finished = (setup: ConnectionSetup, runId: string, timeoutMs = 60_000) => runFinished(setup, runId, timeoutMs);

const GOOGLE_LOGIN_DIED =
  'Google Ads has disconnected SignalBridge from this account (the login expired or access was removed). Reconnect to keep your data flowing.';

const warehouseRows = (setup: ConnectionSetup) => platforms.bigquery.rows('acme-warehouse', setup.dataset, setup.table);
const keyOf = (row: Record<string, unknown>) => adRowKey(row as unknown as AdRow);

/** What the platform reports for the connection's accounts over a window, read outside the worker. */
async function reported(setup: ConnectionSetup, from: string, to: string): Promise<AdRow[]> {
  const connection = await getConnection(setup.orgId, setup.connectionId);
  const { session, integration } = await openSessionOf(setup.orgId, 'source', setup.sourceId);
  const rows: AdRow[] = [];
  for (const picked of connection.source.accounts) {
    const account = integration.accounts.find((candidate) => candidate.id === picked.id)!;
    rows.push(...(await readWindow(session, connection.source.platform, { account, level: connection.level, from, to })));
  }
  return rows;
}

/** Rows as figures by key, for comparing what was written with what was reported. */
const figures = (rows: Array<Record<string, unknown>>) =>
  new Map(
    rows.map((row) => [
      keyOf(row),
      { impressions: Number(row.impressions), clicks: Number(row.clicks), spend: Number(row.spend), conversions: Number(row.conversions) },
    ]),
  );

test('a run writes exactly what the platform reports; a rerun leaves one row per key; a restated day is updated', async () => {
  const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, lookbackDays: 5 });
  worker();
  const first = await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(first).toMatchObject({ outcome: 'succeeded', jobsTotal: 2, jobsDone: 2 });
  const written = warehouseRows(setup);
  const expected = await reported(setup, first.from, first.to);
  expect(expected.length).toBeGreaterThan(0);
  expect(figures(written)).toEqual(figures(expected as unknown as Array<Record<string, unknown>>));
  expect(first.rowsWritten).toBe(expected.length);
  // Both accounts, each in its own currency and time zone (a client through its manager, and a direct one).
  expect(new Set(written.map((row) => `${row.account_id} ${row.currency} ${row.time_zone}`))).toEqual(
    new Set(['1234567890 USD America/New_York', '5556667778 EUR Europe/Berlin']),
  );

  const second = await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(second.outcome).toBe('succeeded');
  const rerun = warehouseRows(setup);
  expect(rerun).toHaveLength(written.length);
  expect(new Set(rerun.map(keyOf)).size).toBe(rerun.length);

  platforms.adData.restate();
  const third = await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(third.outcome).toBe('succeeded');
  const restated = warehouseRows(setup);
  expect(restated).toHaveLength(written.length);
  expect(figures(restated)).toEqual(figures((await reported(setup, third.from, third.to)) as unknown as Array<Record<string, unknown>>));
  expect(figures(restated)).not.toEqual(figures(written));

  // The chart's days follow what was written.
  const connection = await getConnection(setup.orgId, setup.connectionId);
  expect(connection).toMatchObject({ status: 'active', runningRunId: null, lastRun: { id: third.id, outcome: 'succeeded' } });
});

test('the scheduler starts a due connection once, however many ticks arrive', async () => {
  const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, accountIds: ['5556667778'] });
  await Promise.all([tick(), tick(), tick()]);
  const connection = await getConnection(setup.orgId, setup.connectionId);
  expect(connection.runningRunId).toEqual(expect.any(String));
  expect(Date.parse(connection.nextRunAt!)).toBeGreaterThan(Date.now());
  worker();
  const run = await finished(setup, connection.runningRunId!);
  expect(run).toMatchObject({ kind: 'scheduled', outcome: 'succeeded' });
  expect(warehouseRows(setup).length).toBe(run.rowsWritten);
});

test('a two-year backfill killed mid-way (SIGKILL) resumes on another worker: every day once, no gaps', async () => {
  const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, accountIds: ['5556667778'] });
  const from = addDays(toDay(Date.now()), -730);
  const { runId, chunks } = await startBackfill(setup.orgId, 'scale', setup.owner.uid, setup.connectionId, from);
  expect(chunks).toBeGreaterThanOrEqual(24);
  // One chunk at a time on the first worker, so it is killed with most of the backfill still to come.
  const first = worker({ SYNC_BACKFILL_CONCURRENCY: '1' });
  await untilValue(
    () => getRun(setup.orgId, setup.connectionId, runId),
    (run) => run.jobsDone >= 4,
    120_000,
    'four chunks',
  );
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const halfway = await getRun(setup.orgId, setup.connectionId, runId);
  expect(halfway.jobsDone).toBeLessThan(halfway.jobsTotal);
  worker();
  const run = await finished(setup, runId, 240_000);
  expect(run).toMatchObject({ outcome: 'succeeded', jobsDone: run.jobsTotal });
  const rows = warehouseRows(setup);
  expect(new Set(rows.map(keyOf)).size).toBe(rows.length);
  const campaigns = new Set(rows.map((row) => row.campaign_id));
  const days = daysInclusive(run.from, run.to);
  expect(rows).toHaveLength(campaigns.size * days);
  for (const campaign of campaigns) {
    const dates = new Set(rows.filter((row) => row.campaign_id === campaign).map((row) => row.date));
    expect(dates.size).toBe(days);
  }
});

test('a login revoked mid-backfill pauses the connection; Reconnect resumes where it stopped', async () => {
  const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, accountIds: ['5556667778'] });
  // Heavier reports, one chunk at a time: the login is revoked while most of the backfill is still to come (the run's
  // count is written once a second, and light chunks could all be done by the time it shows two).
  platforms.adData.configure({ campaigns: 30 });
  const { runId } = await startBackfill(setup.orgId, 'scale', setup.owner.uid, setup.connectionId, addDays(toDay(Date.now()), -730));
  worker({ SYNC_BACKFILL_CONCURRENCY: '1' });
  await untilValue(
    () => getRun(setup.orgId, setup.connectionId, runId),
    (run) => run.jobsDone >= 2,
    120_000,
    'two chunks',
  );
  platforms.revokeAll('google');
  const paused = await finished(setup, runId, 120_000);
  expect(paused.outcome).toBe('needs_reauth');
  expect(paused.jobsDone).toBeLessThanOrEqual(paused.jobsTotal);
  const connection = await getConnection(setup.orgId, setup.connectionId);
  expect(connection.status).toBe('needs_reauth');
  // One sentence whether the dead login is noticed at refresh or by the report: no race decides the words.
  expect(connection.statusReason).toBe(GOOGLE_LOGIN_DIED);

  // Reconnect: the user goes through consent again.
  const oauth = connectorFor('google_ads').auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('test-state', 'http://localhost:3999/addSource'));
  const login = await oauth.exchangeCode(returned.searchParams.get('code')!, 'http://localhost:3999/addSource');
  await reconnectIntegration(setup.orgId, 'source', setup.sourceId, login, setup.owner.uid);
  await resumeConnections(setup.orgId, 'source', setup.sourceId);
  const run = await finished(setup, runId, 180_000);
  expect(run.outcome).toBe('succeeded');
  const rows = warehouseRows(setup);
  const campaigns = new Set(rows.map((row) => row.campaign_id));
  expect(rows).toHaveLength(campaigns.size * daysInclusive(run.from, run.to));
  expect(new Set(rows.map(keyOf)).size).toBe(rows.length);
  expect((await getConnection(setup.orgId, setup.connectionId)).status).toBe('active');
});

test('one account failing does not fail the others: their rows are written, the run says which failed and why', async () => {
  const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, lookbackDays: 3 });
  platforms.adData.failAccount('1234567890', 500);
  worker();
  const run = await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(run.outcome).toBe('partial');
  expect(run.accounts['1234567890']).toMatchObject({ failed: 1, rowsWritten: 0 });
  expect(run.accounts['1234567890']!.error).toMatch(/^Google Ads did not answer/);
  expect(run.accounts['5556667778']).toMatchObject({ failed: 0 });
  const rows = warehouseRows(setup);
  expect(rows.length).toBe(run.accounts['5556667778']!.rowsWritten);
  expect(rows.every((row) => row.account_id === '5556667778')).toBe(true);
});

test('Meta → Mixpanel: each day once as an Ad Data event, the same after a rerun', async () => {
  const setup = await setUpConnection({
    serviceAccountKey: platforms.serviceAccountKey,
    platform: 'meta_ads',
    destination: 'mixpanel',
    level: 'ad_group',
    lookbackDays: 4,
  });
  worker();
  const first = await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(first.outcome).toBe('succeeded');
  // The only Ad Data this file sends to the project.
  const events = () => platforms.mixpanel.events(SANDBOX_MIXPANEL.projects.US.id, 'Ad Data');
  const count = events().length;
  expect(count).toBe(first.rowsWritten);
  await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(events()).toHaveLength(count);
});

test('a rate limit is retried and the run says when; once the platform answers, the account is written', async () => {
  const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, lookbackDays: 2, accountIds: ['5556667778'] });
  // Long enough that the first attempt meets it however slowly the worker starts (a busy machine), and the note
  // stays while the job waits: the test must not depend on which comes first.
  platforms.adData.failAccount('5556667778', 429, 15);
  worker({ SYNC_JOB_ATTEMPTS: '15' });
  const runId = (await startRun(setup.orgId, setup.connectionId, 'manual'))!;
  const noted = await untilValue(
    () => getRun(setup.orgId, setup.connectionId, runId),
    (run) => Boolean(run.accounts['5556667778']?.error) || run.outcome !== 'running',
    60_000,
    'the rate-limit note',
  );
  expect(noted.accounts['5556667778']!.error).toMatch(/^Google Ads rate limit — retrying at \d\d:\d\d UTC$/);
  const run = await finished(setup, runId, 120_000);
  expect(run.outcome).toBe('succeeded');
  expect(run.accounts['5556667778']).toMatchObject({ failed: 0, error: null });
  expect(warehouseRows(setup).length).toBe(run.rowsWritten);
});

test('a login refused mid-job (not at refresh) marks its source, so the page offers Reconnect', async () => {
  const setup = await setUpConnection({
    serviceAccountKey: platforms.serviceAccountKey,
    platform: 'meta_ads',
    destination: 'mixpanel',
    lookbackDays: 2,
    accountIds: ['101'],
  });
  // Meta's long-lived tokens are not refreshed: a removed permission shows only when the report is read (code 190).
  platforms.revokeAll('meta');
  worker();
  const run = await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(run.outcome).toBe('needs_reauth');
  expect((await getIntegration(setup.orgId, 'source', setup.sourceId)).status).toBe('needs_reauth');
  const connection = await getConnection(setup.orgId, setup.connectionId);
  expect(connection.status).toBe('needs_reauth');
  // The same sentence as a login refused at refresh.
  expect(connection.statusReason).toBe(
    'Meta Ads has disconnected SignalBridge from this account (the login expired or access was removed). Reconnect to keep your data flowing.',
  );
});
