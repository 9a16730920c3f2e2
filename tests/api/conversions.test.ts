import conversionsRoute from '@/pages/api/orgs/[orgId]/conversions/index';
import conversionRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/index';
import deliveriesRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/deliveries';
import testRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/test';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { createTestMember } from '@/tests/fixtures/firebase';
import { setUpConversion, type ConversionSetup } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// The conversion routes: plan, validation against the platform, roles, another tenant, Send test event.
let s: Record<'list' | 'item' | 'deliveries' | 'test', TestServer>;
let platforms: FakePlatforms;
let setup: ConversionSetup;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ list: conversionsRoute, item: conversionRoute, deliveries: deliveriesRoute, test: testRoute });
  // Its conversion takes Lead only, so one of Purchase to the same pixel is no twin (which would send each event twice).
  setup = await setUpConversion('meta_ads', { events: ['Lead'] });
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const body = (overrides: Record<string, unknown> = {}) => ({
  name: 'Purchases',
  source: { type: 'app', appId: setup.appId },
  destination: { destinationId: setup.destinationId, accountId: '101', targetId: '555000111' },
  mapping: { events: ['Purchase'], value: { mode: 'event' }, identifiers: ['email', 'clickIds'] },
  ...overrides,
});

/** Creates a conversion of `body(overrides)`, as the owner. */
const create = (overrides: Record<string, unknown> = {}) =>
  call(s.list, { method: 'POST', token: setup.owner.token, query: { orgId: setup.orgId }, body: body(overrides) });
/** A request to a route of the conversion, as the owner unless `token` says otherwise. */
const onConversion = (route: TestServer, request: { method?: string; body?: unknown; token?: string } = {}) =>
  call(route, { token: setup.owner.token, query: { orgId: setup.orgId, id: setup.conversionId }, ...request });

test('create → list → detail; the target is checked with the platform', async () => {
  const created = await create();
  expect(created.status).toBe(200);
  expect(created.body.conversion).toMatchObject({
    name: 'Purchases',
    status: 'active',
    destination: { platform: 'meta_ads', targetId: '555000111', targetName: 'Acme Shoes Pixel' },
  });
  const list = await call(s.list, { token: setup.owner.token, query: { orgId: setup.orgId } });
  expect((list.body.conversions as Array<{ name: string; last24h: unknown }>).map((conversion) => conversion.name)).toContain('Purchases');
  const unknownTarget = await create({ destination: { destinationId: setup.destinationId, accountId: '101', targetId: '999' } });
  expect(unknownTarget.status).toBe(400);
  expect(unknownTarget.body.fieldErrors).toHaveProperty(['destination.targetId']);
});

test('a plan without conversions → 403 naming the plans that have them; nothing created', async () => {
  await adminDb().collection('organizations').doc(setup.orgId).update({ 'subscription.plan': 'starter' });
  try {
    const refused = await create({ name: 'Refused' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'plan_limit',
      message: 'Conversions are included in the Growth and Scale plans. Upgrade to send conversions to the ad platforms.',
    });
  } finally {
    await adminDb().collection('organizations').doc(setup.orgId).update({ 'subscription.plan': 'growth' });
  }
  const list = await call(s.list, { token: setup.owner.token, query: { orgId: setup.orgId } });
  expect((list.body.conversions as Array<{ name: string }>).map((conversion) => conversion.name)).not.toContain('Refused');
});

test('Send test event → delivered to the pixel as a test, and logged as a test call', async () => {
  const sent = await onConversion(s.test, { method: 'POST' });
  expect(sent.status).toBe(200);
  expect(sent.body.row).toMatchObject({ status: 'delivered', maskedEmail: 't***@signalbridge.example' });
  expect(platforms.conversions.list('meta').some((entry) => entry.target === 'test:555000111')).toBe(true);
  const log = await call(s.deliveries, { token: setup.owner.token, query: { orgId: setup.orgId, id: setup.conversionId } });
  expect(log.body.deliveries).toEqual([expect.objectContaining({ test: true, counts: expect.objectContaining({ delivered: 1 }) })]);
  const row = (log.body.deliveries as Array<{ rows: Array<{ id: string }> }>)[0]!.rows[0]!;
  const found = await call(s.deliveries, {
    token: setup.owner.token,
    query: { orgId: setup.orgId, id: setup.conversionId, eventId: row.id },
  });
  expect(found.body.deliveries).toHaveLength(1);
});

test('pause and resume; a member may pause but not delete', async () => {
  const member = await createTestMember(setup.orgId);
  const paused = await onConversion(s.item, { method: 'PATCH', body: { status: 'paused' }, token: member.token });
  expect(paused.body.conversion).toMatchObject({ status: 'paused' });
  expect((await onConversion(s.item, { method: 'DELETE', token: member.token })).status).toBe(403);
  const resumed = await onConversion(s.item, { method: 'PATCH', body: { status: 'active' } });
  expect(resumed.body.conversion).toMatchObject({ status: 'active' });
});

test("another organization's member gets 404 on every conversion route, and changes nothing", async () => {
  const other = await setUpConversion('meta_ads');
  const as = { token: other.owner.token, query: { orgId: setup.orgId, id: setup.conversionId } };
  expect((await call(s.item, as)).status).toBe(404);
  expect((await call(s.deliveries, as)).status).toBe(404);
  expect((await call(s.item, { ...as, method: 'PATCH', body: { name: 'Hijacked' } })).status).toBe(404);
  expect((await call(s.item, { ...as, method: 'DELETE' })).status).toBe(404);
  expect((await call(s.test, { ...as, method: 'POST' })).status).toBe(404);
  // Its own organization id with this conversion's id: not found either.
  expect((await call(s.item, { token: other.owner.token, query: { orgId: other.orgId, id: setup.conversionId } })).status).toBe(404);
  const detail = await call(s.item, { token: setup.owner.token, query: { orgId: setup.orgId, id: setup.conversionId } });
  expect(detail.body.conversion).toMatchObject({ name: 'Leads' });
});
