import { addDays, daysInclusive, lookbackWindow, toDay } from '@/lib/shared/connections/windows';
import { connectorFor } from '@/lib/server/connectors/registry';
import { forgetAllSessions, openSessionOf } from '@/lib/server/credentials';
import { writtenDays } from '@/lib/server/repos/connections';
import { cancelRun, claimRun, getRun } from '@/lib/server/repos/ledger';
import { getIntegration } from '@/lib/server/repos/integrations';
import { runSyncJob } from '@/lib/server/sync/runner';
import { startBackfill } from '@/lib/server/services/connections';
import { reconnectIntegration } from '@/lib/server/services/integrations';
import { consentTo, platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { runFinished, setUpConnection, type ConnectionSetup } from '@/tests/api/helpers/connections';
import { untilValue } from '@/tests/api/helpers/until';

// Sessions of a login opened once and shared (lib/server/credentials.ts), and backfills shared fairly
// between organizations (lib/server/sync/fairShare.ts), through worker processes against the sandbox.
jest.setTimeout(300_000);

let platforms: FakePlatforms;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
});
const worker = workerProcesses({ SYNC_JOB_ATTEMPTS: '2' });
afterEach(() => {
  platforms.adData.reset();
  forgetAllSessions();
});
afterAll(() => platforms.close());

const finished = (setup: ConnectionSetup, runId: string, timeoutMs = 180_000) => runFinished(setup, runId, timeoutMs);

const everyDay = (from: string, to: string) => Array.from({ length: daysInclusive(from, to) }, (_, index) => addDays(from, index));

const microsoftToMixpanel = () =>
  setUpConnection({
    serviceAccountKey: platforms.serviceAccountKey,
    platform: 'microsoft_ads',
    destination: 'mixpanel',
    accountIds: ['301', '302'],
  });

test('a cached session whose token died (expired mid-job, or ended early) is refreshed once: the job succeeds and the login stays connected', async () => {
  const setup = await microsoftToMixpanel();
  // Setting up listed the login's accounts in this process: its session is cached here, as a worker's would be.
  await openSessionOf(setup.orgId, 'source', setup.sourceId);
  const now = new Date();
  const claim = await claimRun(setup.orgId, setup.connectionId, {
    kind: 'manual',
    now,
    window: () => lookbackWindow(3, now),
    nextRunAt: () => new Date(now.getTime() + 3_600_000),
  });
  if (!claim.claimed) throw new Error(`no run: ${claim.reason}`);
  platforms.refreshes.reset();
  platforms.expireAccessTokens('microsoft');
  await expect(runSyncJob({ org: setup.orgId, connection: setup.connectionId, run: claim.runId, job: '301' })).resolves.toBe('ack');
  const run = await getRun(setup.orgId, setup.connectionId, claim.runId);
  expect(run.jobs['301']).toMatchObject({ status: 'done', error: null });
  expect(run.jobs['301']!.rowsWritten).toBeGreaterThan(0);
  expect(platforms.refreshes.count('microsoft')).toEqual({ refreshes: 1, logins: 1 });
  expect((await getIntegration(setup.orgId, 'source', setup.sourceId)).status).toBe('active');

  // A login that is really gone still ends needs reconnecting: the fresh refresh is refused too.
  platforms.revokeAll('microsoft');
  await runSyncJob({ org: setup.orgId, connection: setup.connectionId, run: claim.runId, job: '302' });
  expect((await getRun(setup.orgId, setup.connectionId, claim.runId)).jobs['302']).toMatchObject({ status: 'paused' });
  expect((await getIntegration(setup.orgId, 'source', setup.sourceId)).status).toBe('needs_reauth');
});

test('openings of one login at once share one refresh; a reconnect (here or elsewhere) is a new session', async () => {
  const setup = await microsoftToMixpanel();
  // Setting up listed the login's accounts in this process: start from no session.
  forgetAllSessions();
  platforms.refreshes.reset();
  const opened = await Promise.all([1, 2, 3, 4, 5].map(() => openSessionOf(setup.orgId, 'source', setup.sourceId)));
  expect(new Set(opened.map(({ session }) => session.accessToken)).size).toBe(1);
  await openSessionOf(setup.orgId, 'source', setup.sourceId);
  expect(platforms.refreshes.count('microsoft')).toEqual({ refreshes: 1, logins: 1 });

  // Reconnected: the object's connected_at moves, which every instance reads with the object.
  const oauth = connectorFor('microsoft_ads').auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('test-state', 'http://localhost:3999/addSource'));
  const login = await oauth.exchangeCode(returned.searchParams.get('code')!, 'http://localhost:3999/addSource');
  await reconnectIntegration(setup.orgId, 'source', setup.sourceId, login, setup.owner.uid);
  const after = await openSessionOf(setup.orgId, 'source', setup.sourceId);
  expect(after.session.accessToken).not.toBe(opened[0]!.session.accessToken);
  expect(platforms.refreshes.count('microsoft')).toEqual({ refreshes: 2, logins: 2 });
});

test('parallel jobs of one Microsoft login never end needs reconnecting; one worker refreshes the login once for the whole backfill', async () => {
  const setup = await microsoftToMixpanel();
  platforms.refreshes.reset();
  const { runId, chunks } = await startBackfill(
    setup.orgId,
    'scale',
    setup.owner.uid,
    setup.connectionId,
    addDays(toDay(Date.now()), -200),
  );
  expect(chunks).toBeGreaterThanOrEqual(6);
  worker();
  const run = await finished(setup, runId);
  expect(run).toMatchObject({ outcome: 'succeeded', jobsDone: run.jobsTotal });
  expect(run.jobsTotal).toBeGreaterThanOrEqual(12);
  expect(platforms.refreshes.count('microsoft')).toEqual({ refreshes: 1, logins: 1 });
  expect((await getIntegration(setup.orgId, 'source', setup.sourceId)).status).toBe('active');
  // The chart's days: every day of the window once, with both accounts (settled together or apart).
  const days = await writtenDays(setup.orgId, setup.connectionId, 1000);
  expect(days.map((day) => day.date)).toEqual(everyDay(run.from, run.to));
  expect(days.every((day) => Object.keys(day.accounts).sort().join() === '301,302')).toBe(true);

  // Two workers, each refreshing the same stored login at once: both go on working.
  const second = await startBackfill(setup.orgId, 'scale', setup.owner.uid, setup.connectionId, addDays(toDay(Date.now()), -200));
  worker();
  worker();
  const again = await finished(setup, second.runId);
  expect(again).toMatchObject({ outcome: 'succeeded', jobsDone: again.jobsTotal });
  expect((await getIntegration(setup.orgId, 'source', setup.sourceId)).status).toBe('active');
});

test('organizations take turns: B’s backfill queued behind A’s long one on several accounts runs its first chunk before half of A’s', async () => {
  // A's chunks are on two accounts and the worker runs one chunk at a time: only turn-taking, not the per-account
  // bounds or free slots, lets B's chunk queued behind all of A's run before them.
  const a = await setUpConnection({
    serviceAccountKey: platforms.serviceAccountKey,
    destination: 'mixpanel',
    accountIds: ['5556667778', '2345678901'],
  });
  const b = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, destination: 'mixpanel', accountIds: ['1234567890'] });
  // Heavier reports: a chunk takes long against the run's once-a-second write, so the counts below are exact enough.
  platforms.adData.configure({ campaigns: 30 });
  // Two years on two accounts: B's chunk is recorded up to a second after it ran (the run's once-a-second write),
  // and A goes on meanwhile, so A must be long enough for "before half" to mean "long before the end".
  const long = await startBackfill(a.orgId, 'scale', a.owner.uid, a.connectionId, addDays(toDay(Date.now()), -730));
  const short = await startBackfill(b.orgId, 'scale', b.owner.uid, b.connectionId, addDays(toDay(Date.now()), -60));
  expect(long.chunks).toBeGreaterThanOrEqual(24);
  // Both queued before the worker starts: in the queue, every chunk of A comes before B's. One chunk at a time.
  worker({ SYNC_BACKFILL_CONCURRENCY: '1' });
  const seen = await untilValue(
    async () => ({ a: await getRun(a.orgId, a.connectionId, long.runId), b: await getRun(b.orgId, b.connectionId, short.runId) }),
    ({ a: runA, b: runB }) => runB.jobsDone > 0 || runA.outcome !== 'running',
    180_000,
    'B’s first chunk',
  );
  expect(seen.b.jobsDone).toBeGreaterThan(0);
  // First come first served, B's chunk would run after every one of A's. (The runs' counts are written once a second,
  // and the emulator hands out the queue a pull at a time: A may be a few chunks further than B by then.)
  expect(seen.a.jobsDone).toBeLessThan(seen.a.jobsTotal / 2);
  expect((await finished(b, short.runId)).outcome).toBe('succeeded');
  // Nothing of A's left for the next tests' workers.
  await cancelRun(a.orgId, a.connectionId, long.runId);
});
