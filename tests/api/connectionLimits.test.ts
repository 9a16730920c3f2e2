import connectionRoute from '@/pages/api/orgs/[orgId]/connections/[id]/index';
import runRoute from '@/pages/api/orgs/[orgId]/connections/[id]/run';
import backfillRoute from '@/pages/api/orgs/[orgId]/connections/[id]/backfill';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { deadLoginMessage } from '@/lib/server/credentials';
import { getConnection } from '@/lib/server/repos/connections';
import { abandonRun, getRun, listRuns } from '@/lib/server/repos/ledger';
import { deleteConnection } from '@/lib/server/services/connections';
import { runSyncJob } from '@/lib/server/sync/runner';
import { startRun } from '@/lib/server/sync/scheduler';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { setUpConnection, type ConnectionSetup } from '@/tests/api/helpers/connections';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { settleJob } from '@/lib/server/repos/runSettlement';

// A connection's routes against bad input (a clear 400 that changes nothing), Run now's cooldown, and a
// connection deleted while one of its jobs runs (the job writes nothing more, anywhere).
jest.setTimeout(120_000);

let s: Record<'item' | 'run' | 'backfill', TestServer>;
let platforms: FakePlatforms;
let setup: ConnectionSetup;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ item: connectionRoute, run: runRoute, backfill: backfillRoute });
  setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, accountIds: ['5556667778'] });
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const at = (target: ConnectionSetup) => ({ token: target.owner.token, query: { orgId: target.orgId, id: target.connectionId } });

test('PATCH with nothing to change ({} or null) → 400 with a sentence; the connection is unchanged', async () => {
  const before = await getConnection(setup.orgId, setup.connectionId);
  for (const body of ['{}', 'null']) {
    const response = await call(s.item, { ...at(setup), method: 'PATCH', body });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, code: 'invalid_request' });
    expect(JSON.stringify(response.body.fieldErrors)).toMatch(/Nothing to change/);
  }
  expect(await getConnection(setup.orgId, setup.connectionId)).toEqual(before);
});

test('a backfill from a day that is not in the calendar → 400 naming the field; no backfill starts', async () => {
  for (const from of ['2025-00-10', '2025-13-01', '2025-02-30', '2025-04-31']) {
    const response = await call(s.backfill, { ...at(setup), method: 'POST', body: { from } });
    expect(response.status).toBe(400);
    expect(response.body.fieldErrors).toEqual({ from: ['Not a day of the calendar: check the month and the day'] });
  }
  expect((await getConnection(setup.orgId, setup.connectionId)).backfillRunId).toBeNull();
  expect((await listRuns(setup.orgId, setup.connectionId)).filter((run) => run.kind === 'backfill')).toHaveLength(0);
});

test('Run now has a cooldown: once a run is over, the next within minutes → 429 with Retry-After; no run starts', async () => {
  const fresh = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, accountIds: ['5556667778'], plan: 'starter' });
  const first = await call(s.run, { ...at(fresh), method: 'POST' });
  expect(first.status).toBe(200);
  // The run ends (here: abandoned, as fast as a small sync would finish).
  await abandonRun(fresh.orgId, fresh.connectionId, first.body.runId as string);
  const again = await Promise.all(Array.from({ length: 3 }, () => call(s.run, { ...at(fresh), method: 'POST' })));
  for (const response of again) {
    expect(response.status).toBe(429);
    expect(response.body).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/^This connection ran a moment ago/) });
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(300);
  }
  expect(await listRuns(fresh.orgId, fresh.connectionId)).toHaveLength(1);
});

test('a connection deleted while its job reads the report: the job writes nothing to the warehouse, nor under the connection', async () => {
  const doomed = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, accountIds: ['5556667778'] });
  const runId = (await startRun(doomed.orgId, doomed.connectionId, 'manual'))!;
  const [job] = Object.keys((await getRun(doomed.orgId, doomed.connectionId, runId)).jobs);
  // The user deletes the connection while Google Ads answers the job's report.
  const realFetch = globalThis.fetch;
  let deleted = false;
  const spy = jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    if (!deleted && String(input instanceof Request ? input.url : input).includes('searchStream')) {
      deleted = true;
      await deleteConnection(doomed.orgId, doomed.owner.uid, doomed.connectionId);
    }
    return realFetch(input, init);
  });
  try {
    expect(await runSyncJob({ org: doomed.orgId, connection: doomed.connectionId, run: runId, job: job! })).toBe('ack');
  } finally {
    spy.mockRestore();
  }
  expect(deleted).toBe(true);
  const ref = adminDb().collection('organizations').doc(doomed.orgId).collection('connections').doc(doomed.connectionId);
  expect((await ref.get()).exists).toBe(false);
  const left = await Promise.all((await ref.listCollections()).map(async (collection) => (await collection.get()).size));
  expect(left.reduce((total, size) => total + size, 0)).toBe(0);
  let rows: unknown[] = [];
  try {
    rows = platforms.bigquery.rows('acme-warehouse', doomed.dataset, doomed.table);
  } catch {
    rows = []; // the table was never made
  }
  expect(rows).toHaveLength(0);
});

test('a run paused for a dead login says so, even when another of its jobs failed first for another reason', async () => {
  const both = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey });
  const runId = (await startRun(both.orgId, both.connectionId, 'manual'))!;
  const keys = Object.keys((await getRun(both.orgId, both.connectionId, runId)).jobs).sort();
  expect(keys).toHaveLength(2);
  const result = { rowsRead: 0, rowsWritten: 0, calls: 1, durationMs: 10 };
  await settleJob(both.orgId, both.connectionId, runId, keys[0]!, {
    ...result,
    status: 'failed',
    error: 'Google Ads did not answer (500)',
  });
  await settleJob(both.orgId, both.connectionId, runId, keys[1]!, { ...result, status: 'paused', error: deadLoginMessage('google_ads') });
  expect((await getRun(both.orgId, both.connectionId, runId)).outcome).toBe('needs_reauth');
  const connection = await getConnection(both.orgId, both.connectionId);
  expect(connection).toMatchObject({ status: 'needs_reauth', statusReason: deadLoginMessage('google_ads') });
});
