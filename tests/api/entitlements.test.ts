import destination from '@/pages/api/orgs/[orgId]/destinations/[id]/index';
import complete from '@/pages/api/orgs/[orgId]/oauth/complete';
import start from '@/pages/api/orgs/[orgId]/oauth/start';
import source from '@/pages/api/orgs/[orgId]/sources/[id]/index';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { connectThroughConsent } from '@/tests/api/helpers/oauth';
import { callLoose as call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

const APP_URL = 'http://app.test';
const GOOGLE = ['5556667778', '1234567890', '2345678901'];
const handlers = { start, complete, source, destination };
let s: Record<keyof typeof handlers, TestServer>;
let platforms: FakePlatforms;
let owner: TestUser;

beforeAll(async () => {
  s = await serveHandlers(handlers);
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms), { APP_URL });
  owner = await createTestUser();
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const organizationOn = (plan: string | null) =>
  createTestOrganization([[owner, 'owner']], { subscription: { status: 'active', plan, current_period_end: '2099-01-01T00:00:00.000Z' } });

/** Connects a platform through the sandbox's consent and returns the new object's id. */
const connect = (orgId: string, platform: string, kind: 'source' | 'destination' = 'source', user = owner) =>
  connectThroughConsent(s, user, orgId, { platform, kind });

const pick = (orgId: string, id: string, accountIds: string[], user = owner, route: TestServer = s.source) =>
  call(route, { method: 'PATCH', token: user.token, query: { orgId, id }, body: { accountIds } });

const savedAccounts = async (orgId: string, id: string) =>
  ((await call(s.source, { token: owner.token, query: { orgId, id } })).body.source.accounts as Array<{ id: string }>).map(
    (account) => account.id,
  );

test('Starter: a third ad account is refused with the plan that includes it, and nothing changes', async () => {
  const orgId = await organizationOn('starter');
  const google = await connect(orgId, 'google_ads');
  const refused = await pick(orgId, google, GOOGLE);
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({
    code: 'plan_limit',
    message: 'The Starter plan includes 2 ad accounts; you selected 3. Upgrade to Growth for up to 10.',
  });
  expect(await savedAccounts(orgId, google)).toEqual([]);
  expect((await pick(orgId, google, GOOGLE.slice(0, 2))).status).toBe(200);
});

test('the limit counts ad accounts across all of the organization’s sources, not per source', async () => {
  const orgId = await organizationOn('starter');
  const google = await connect(orgId, 'google_ads');
  const meta = await connect(orgId, 'meta_ads');
  expect((await pick(orgId, google, GOOGLE.slice(0, 2))).status).toBe(200);
  const refused = await pick(orgId, meta, ['101']);
  expect(refused.status).toBe(403);
  expect(refused.body.message).toBe('The Starter plan includes 2 ad accounts; you selected 3. Upgrade to Growth for up to 10.');
  expect((await pick(orgId, google, GOOGLE.slice(0, 1))).status).toBe(200);
  expect((await pick(orgId, meta, ['101'])).status).toBe(200);
});

test('ad accounts of conversion destinations do not count against the sources’ limit', async () => {
  const orgId = await organizationOn('starter');
  const meta = await connect(orgId, 'meta_ads', 'destination');
  expect((await pick(orgId, meta, ['101', '102'], owner, s.destination)).status).toBe(200);
  const google = await connect(orgId, 'google_ads');
  expect((await pick(orgId, google, GOOGLE.slice(0, 2))).status).toBe(200);
});

test('Scale has no limit', async () => {
  const orgId = await organizationOn('scale');
  const google = await connect(orgId, 'google_ads');
  const meta = await connect(orgId, 'meta_ads');
  expect((await pick(orgId, google, GOOGLE)).status).toBe(200);
  expect((await pick(orgId, meta, ['101', '102'])).status).toBe(200);
});

test('without a known plan the organization gets Starter’s limit, and the message says so', async () => {
  const orgId = await organizationOn(null);
  const google = await connect(orgId, 'google_ads');
  const refused = await pick(orgId, google, GOOGLE);
  expect(refused.status).toBe(403);
  expect(refused.body.message).toBe('Without a plan, an organization includes 2 ad accounts; you selected 3. Choose Growth for up to 10.');
});

test('the limit is the organization’s: a super admin acting in it is held to it too', async () => {
  const orgId = await organizationOn('starter');
  const google = await connect(orgId, 'google_ads');
  const superAdmin = await createTestUser({ superAdmin: true });
  const refused = await pick(orgId, google, GOOGLE, superAdmin);
  expect(refused.status).toBe(403);
  expect(refused.body.code).toBe('plan_limit');
});

test('an organization over its limit (after a downgrade) may still remove accounts, never add', async () => {
  const orgId = await organizationOn('starter');
  const google = await connect(orgId, 'google_ads');
  const meta = await connect(orgId, 'meta_ads');
  const sources = adminDb().collection('organizations').doc(orgId).collection('sources');
  // Picked while the organization was on Growth.
  await sources.doc(google).update({ accounts: GOOGLE.map((id) => ({ id, name: id })) });
  await sources.doc(meta).update({ accounts: [{ id: '101', name: '101' }] });
  expect((await pick(orgId, meta, ['101', '102'])).status).toBe(403);
  expect((await pick(orgId, google, GOOGLE.slice(0, 2))).status).toBe(200);
  expect((await savedAccounts(orgId, google)).sort()).toEqual(GOOGLE.slice(0, 2).sort());
});
