import runRoute from '@/pages/api/orgs/[orgId]/connections/[id]/run';
import runDetailRoute from '@/pages/api/orgs/[orgId]/connections/[id]/runs/[runId]';
import runsCsvRoute from '@/pages/api/orgs/[orgId]/connections/[id]/runs.csv';

import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { setUpConnection, type ConnectionSetup } from '@/tests/api/helpers/connections';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { settleJob } from '@/lib/server/repos/runSettlement';

// A run opened (per account rows, calls, time, the error) and the run history as CSV: members only,
// another organization's member gets 404.
let s: Record<'run' | 'detail' | 'csv', TestServer>;
let platforms: FakePlatforms;
let setup: ConnectionSetup;
let runId: string;

const QUOTA = 'Google Ads refused the request: the daily quota is exhausted, "try tomorrow".';

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ run: runRoute, detail: runDetailRoute, csv: runsCsvRoute });
  setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, accountIds: ['1234567890', '5556667778'] });
  const started = await call(s.run, { method: 'POST', token: setup.owner.token, query: { orgId: setup.orgId, id: setup.connectionId } });
  runId = started.body.runId as string;
  // The jobs as a worker settles them: one account wrote, the other failed.
  await settleJob(setup.orgId, setup.connectionId, runId, '1234567890', {
    status: 'done',
    rowsRead: 42,
    rowsWritten: 40,
    calls: 3,
    durationMs: 2_500,
    error: null,
  });
  await settleJob(setup.orgId, setup.connectionId, runId, '5556667778', {
    status: 'failed',
    rowsRead: 0,
    rowsWritten: 0,
    calls: 1,
    durationMs: 700,
    error: QUOTA,
  });
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const query = () => ({ orgId: setup.orgId, id: setup.connectionId, runId });

test('an opened run lists each account: rows read and written, API calls, time and its error', async () => {
  const response = await call(s.detail, { token: setup.owner.token, query: query() });
  expect(response.status).toBe(200);
  expect(response.body.run).toMatchObject({
    id: runId,
    kind: 'manual',
    outcome: 'partial',
    rowsRead: 42,
    rowsWritten: 40,
    calls: 4,
    error: QUOTA,
  });
  expect(response.body.accounts).toEqual([
    { id: '1234567890', rowsRead: 42, rowsWritten: 40, calls: 3, durationMs: 2_500, jobs: 1, failed: 0, error: null },
    expect.objectContaining({ id: '5556667778', rowsRead: 0, calls: 1, durationMs: 700, jobs: 1, failed: 1, error: QUOTA }),
  ]);
});

test('the run history as CSV: a header, one line per run, days both ends included, fields quoted', async () => {
  const response = await call(s.csv, { token: setup.owner.token, query: { orgId: setup.orgId, id: setup.connectionId } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(response.headers.get('content-disposition')).toContain('attachment');
  const lines = (response.body.raw as string).trimEnd().split('\r\n');
  expect(lines[0]).toBe(
    'run_id,kind,outcome,started_at,finished_at,first_day,last_day,rows_read,rows_written,api_calls,duration_seconds,error',
  );
  expect(lines).toHaveLength(2);
  const [id, kind, outcome, , , first, last, read, written, calls] = lines[1]!.split(',');
  expect({ id, kind, outcome, read, written, calls }).toEqual({
    id: runId,
    kind: 'manual',
    outcome: 'partial',
    read: '42',
    written: '40',
    calls: '4',
  });
  // Lookback 3 days, ending on the day it started (the connection's time zone is UTC).
  const today = new Date().toISOString().slice(0, 10);
  expect(last).toBe(today);
  expect(Math.round((Date.parse(last!) - Date.parse(first!)) / 86_400_000) + 1).toBe(3);
  expect(lines[1]!.endsWith(`"${QUOTA.replaceAll('"', '""')}"`)).toBe(true);
});

test("another organization's member gets 404 on the run and the CSV; an unknown run is 404, a malformed id 400", async () => {
  const other = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey });
  expect((await call(s.detail, { token: other.owner.token, query: query() })).status).toBe(404);
  expect((await call(s.csv, { token: other.owner.token, query: { orgId: setup.orgId, id: setup.connectionId } })).status).toBe(404);
  // Its own organization with this connection's ids: not found either.
  expect((await call(s.detail, { token: other.owner.token, query: { ...query(), orgId: other.orgId } })).status).toBe(404);
  expect((await call(s.csv, { token: other.owner.token, query: { orgId: other.orgId, id: setup.connectionId } })).status).toBe(404);
  expect((await call(s.detail, { token: setup.owner.token, query: { ...query(), runId: 'no-such-run' } })).status).toBe(404);
  expect((await call(s.detail, { token: setup.owner.token, query: { ...query(), runId: 'a/b' } })).status).toBe(400);
  expect((await call(s.csv, { query: { orgId: setup.orgId, id: setup.connectionId } })).status).toBe(401);
});
