import connectionsRoute from '@/pages/api/orgs/[orgId]/connections/index';
import connectionRoute from '@/pages/api/orgs/[orgId]/connections/[id]/index';
import runRoute from '@/pages/api/orgs/[orgId]/connections/[id]/run';
import backfillRoute from '@/pages/api/orgs/[orgId]/connections/[id]/backfill';
import testRoute from '@/pages/api/orgs/[orgId]/connections/[id]/test';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { createTestMember } from '@/tests/fixtures/firebase';
import { connectSource, setUpConnection, type ConnectionSetup } from '@/tests/api/helpers/connections';
import { connectDestination } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// The connection routes: validation against the organization's own objects, plans, roles, another
// tenant, Run now while a run is in progress, and the dry-run test.
let s: Record<'list' | 'item' | 'run' | 'backfill' | 'test', TestServer>;
let platforms: FakePlatforms;
let setup: ConnectionSetup;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ list: connectionsRoute, item: connectionRoute, run: runRoute, backfill: backfillRoute, test: testRoute });
  setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey });
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const org = () => adminDb().collection('organizations').doc(setup.orgId);
const body = (overrides: Record<string, unknown> = {}) => ({
  name: 'Google to BigQuery',
  sourceId: setup.sourceId,
  accountIds: ['1234567890'],
  destinationId: setup.destinationId,
  level: 'ad_group',
  schedule: { every: 'hourly' },
  ...overrides,
});

/** Creates a connection of `body(overrides)` in `at`'s organization, as its owner. */
const create = (overrides: Record<string, unknown> = {}, at: ConnectionSetup = setup) =>
  call(s.list, { method: 'POST', token: at.owner.token, query: { orgId: at.orgId }, body: body(overrides) });
/** A request to a route of `of`'s connection, as its owner unless `token` says otherwise. */
const onConnection = (route: TestServer, request: { method?: string; body?: unknown; token?: string } = {}, of: ConnectionSetup = setup) =>
  call(route, { token: of.owner.token, query: { orgId: of.orgId, id: of.connectionId }, ...request });

test('create → list → detail; the organization counts its connections; defaults filled in', async () => {
  const before = (await org().get()).get('connections_count');
  const created = await create();
  expect(created.status).toBe(200);
  expect(created.body.connection).toMatchObject({
    name: 'Google to BigQuery',
    status: 'active',
    level: 'ad_group',
    lookbackDays: 14,
    source: { platform: 'google_ads', accounts: [{ id: '1234567890', name: 'Acme Shoes' }] },
    destination: { platform: 'bigquery', projectId: 'acme-warehouse', dataset: 'signalbridge', table: 'ad_performance' },
    schedule: { every: 'hourly', at: '06:00', timeZone: 'UTC' },
  });
  expect((await org().get()).get('connections_count')).toBe(before + 1);
  const list = await call(s.list, { token: setup.owner.token, query: { orgId: setup.orgId } });
  expect((list.body.connections as Array<{ name: string }>).map((connection) => connection.name)).toContain('Google to BigQuery');
  const id = (created.body.connection as { id: string }).id;
  const detail = await call(s.item, { token: setup.owner.token, query: { orgId: setup.orgId, id } });
  expect(detail.body).toMatchObject({ connection: { id }, runs: [], days: [], backfill: { allowed: true } });
  expect((detail.body.backfill as { earliest: string }).earliest).toMatch(/^\d{4}-\d{2}-\d{2}$/);
});

test('bad input → 400 naming each field; nothing created', async () => {
  const count = (await org().get()).get('connections_count');
  const malformed = await create({ level: 'keyword', accountIds: [], schedule: { every: 'weekly' }, dataset: 'no-dashes' });
  expect(malformed.status).toBe(400);
  expect(Object.keys(malformed.body.fieldErrors as object)).toEqual(
    expect.arrayContaining(['level', 'accountIds', 'schedule.every', 'dataset']),
  );
  const foreignAccount = await create({ accountIds: ['999'] });
  expect(foreignAccount.status).toBe(400);
  expect(foreignAccount.body.fieldErrors).toHaveProperty('accountIds');
  // An ad platform is a source, not a destination for ad data.
  const adDestination = await connectDestination(setup.orgId, setup.owner.uid, 'meta_ads');
  const wrongKind = await create({ destinationId: adDestination });
  expect(wrongKind.status).toBe(400);
  expect(wrongKind.body.fieldErrors).toHaveProperty('destinationId');
  expect((await org().get()).get('connections_count')).toBe(count);
});

test("another organization's source or destination in the body → 404, nothing created", async () => {
  const other = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey });
  const count = (await org().get()).get('connections_count');
  const foreignSource = await create({ sourceId: other.sourceId });
  expect(foreignSource.status).toBe(404);
  const foreignDestination = await create({ destinationId: other.destinationId });
  expect(foreignDestination.status).toBe(404);
  expect((await org().get()).get('connections_count')).toBe(count);
});

test("another organization's member gets 404 on every connection route, and changes nothing", async () => {
  const other = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey });
  const as = { token: other.owner.token, query: { orgId: setup.orgId, id: setup.connectionId } };
  expect((await call(s.item, as)).status).toBe(404);
  expect((await call(s.item, { ...as, method: 'PATCH', body: { name: 'Hijacked' } })).status).toBe(404);
  expect((await call(s.item, { ...as, method: 'DELETE' })).status).toBe(404);
  expect((await call(s.run, { ...as, method: 'POST' })).status).toBe(404);
  expect((await call(s.backfill, { ...as, method: 'POST', body: { from: '2026-01-01' } })).status).toBe(404);
  expect((await call(s.test, { ...as, method: 'POST', body: { accountId: '1234567890' } })).status).toBe(404);
  expect((await call(s.list, { token: other.owner.token, query: { orgId: setup.orgId } })).status).toBe(404);
  // Its own organization id with this connection's id: not found either.
  expect((await call(s.item, { token: other.owner.token, query: { orgId: other.orgId, id: setup.connectionId } })).status).toBe(404);
  const detail = await call(s.item, { token: setup.owner.token, query: { orgId: setup.orgId, id: setup.connectionId } });
  expect(detail.body.connection).toMatchObject({ name: 'Ads to warehouse', status: 'active' });
});

test('plans: a schedule or a backfill the plan does not include → 403 naming the plan', async () => {
  const starter = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, plan: 'starter', accountIds: ['1234567890'] });
  const hourly = await onConnection(s.item, { method: 'PATCH', body: { schedule: { every: 'hourly' } } }, starter);
  expect(hourly.status).toBe(403);
  expect(hourly.body).toMatchObject({
    code: 'plan_limit',
    message: 'Every hour syncs are included in the Growth and Scale plans. Upgrade, or pick a less frequent schedule.',
  });
  const backfill = await onConnection(s.backfill, { method: 'POST', body: { from: '2026-01-01' } }, starter);
  expect(backfill.status).toBe(403);
  expect(backfill.body.message).toBe('Historical backfills are included in the Scale plan. Upgrade to backfill past days.');
  // Starter syncs two ad accounts: a second connection with two more is refused.
  const source = await connectSource(starter.orgId, starter.owner.uid, 'google_ads');
  const tooMany = await create(
    {
      sourceId: source,
      destinationId: starter.destinationId,
      accountIds: ['1234567890', '5556667778'],
      schedule: { every: 'daily' },
    },
    starter,
  );
  expect(tooMany.status).toBe(403);
  expect(tooMany.body.message).toMatch(/up to 2 ad accounts; these connections would sync 3/);
});

test('a backfill before what the platform keeps → 400 on the date', async () => {
  const refused = await onConnection(s.backfill, { method: 'POST', body: { from: '2001-01-01' } });
  expect(refused.status).toBe(400);
  expect((refused.body.fieldErrors as Record<string, string[]>).from![0]).toMatch(
    /^Google Ads keeps daily figures from \d{4}-\d{2}-\d{2}; start on or after it$/,
  );
});

test('members configure and run; only owners and admins delete', async () => {
  const member = await createTestMember(setup.orgId);
  const paused = await onConnection(s.item, { method: 'PATCH', body: { status: 'paused', lookbackDays: 7 }, token: member.token });
  expect(paused.status).toBe(200);
  expect(paused.body.connection).toMatchObject({ status: 'paused', lookbackDays: 7 });
  const whilePaused = await onConnection(s.run, { method: 'POST', token: member.token });
  expect(whilePaused.status).toBe(409);
  const resumed = await onConnection(s.item, { method: 'PATCH', body: { status: 'active' }, token: member.token });
  expect(resumed.body.connection).toMatchObject({ status: 'active' });
  expect((await onConnection(s.item, { method: 'DELETE', token: member.token })).status).toBe(403);
});

test('Run now starts one run; a second while it lasts → 409', async () => {
  const fresh = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, accountIds: ['5556667778'] });
  const first = await onConnection(s.run, { method: 'POST' }, fresh);
  expect(first.status).toBe(200);
  expect(first.body.runId).toEqual(expect.any(String));
  const second = await onConnection(s.run, { method: 'POST' }, fresh);
  expect(second.status).toBe(409);
  expect(second.body).toMatchObject({
    code: 'run_in_progress',
    message: 'A run of this connection is in progress. Wait for it to finish.',
  });
  const detail = await call(s.item, { token: fresh.owner.token, query: { orgId: fresh.orgId, id: fresh.connectionId } });
  expect(detail.body.runs).toEqual([expect.objectContaining({ id: first.body.runId, kind: 'manual', outcome: 'running', jobsTotal: 1 })]);
});

test('the test reads 7 days of one account and checks the destination, writing nothing', async () => {
  const tested = await onConnection(s.test, { method: 'POST', body: { accountId: '1234567890' } });
  expect(tested.status).toBe(200);
  expect(tested.body.destination).toMatchObject({ ok: true });
  const rows = tested.body.rows as Array<{ date: string; account_id: string; campaign_id: string; spend: number }>;
  expect(rows.length).toBeGreaterThan(0);
  expect(new Set(rows.map((row) => row.date)).size).toBeLessThanOrEqual(7);
  expect(rows.every((row) => row.account_id === '1234567890' && typeof row.spend === 'number')).toBe(true);
  expect(platforms.bigquery.table('acme-warehouse', setup.dataset, setup.table)).toBeUndefined();
  const unknown = await onConnection(s.test, { method: 'POST', body: { accountId: '999' } });
  expect(unknown.status).toBe(400);
  expect(unknown.body.fieldErrors).toHaveProperty('accountId');
});

test('delete removes it and its count; deleting again → 404', async () => {
  const count = (await org().get()).get('connections_count');
  const deleted = await onConnection(s.item, { method: 'DELETE' });
  expect(deleted.status).toBe(200);
  expect((await org().get()).get('connections_count')).toBe(count - 1);
  expect((await onConnection(s.item, { method: 'DELETE' })).status).toBe(404);
});
