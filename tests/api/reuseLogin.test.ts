import complete from '@/pages/api/orgs/[orgId]/oauth/complete';
import start from '@/pages/api/orgs/[orgId]/oauth/start';
import destinationAccounts from '@/pages/api/orgs/[orgId]/destinations/[id]/accounts';
import destination from '@/pages/api/orgs/[orgId]/destinations/[id]/index';
import targets from '@/pages/api/orgs/[orgId]/destinations/[id]/targets';
import reuse from '@/pages/api/orgs/[orgId]/integrations/reuse';
import source from '@/pages/api/orgs/[orgId]/sources/[id]/index';
import sourceAccounts from '@/pages/api/orgs/[orgId]/sources/[id]/accounts';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { connectThroughConsent } from '@/tests/api/helpers/oauth';
import { callLoose as call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

const APP_URL = 'http://app.test';
const handlers = { complete, start, destinationAccounts, destination, targets, reuse, source, sourceAccounts };
let s: Record<keyof typeof handlers, TestServer>;
let platforms: FakePlatforms;
let owner: TestUser;
let member: TestUser;
let outsider: TestUser;
let orgId: string;
let otherOrg: string;

beforeAll(async () => {
  s = await serveHandlers(handlers);
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms), { APP_URL });
  [owner, member, outsider] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
  orgId = await createTestOrganization([
    [owner, 'owner'],
    [member, 'member'],
  ]);
  otherOrg = await createTestOrganization([[outsider, 'owner']]);
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

/** Connects a source through the sandbox's consent, in `org` as `user`. */
const connectSource = (user: TestUser, platform: string, org = orgId) => connectThroughConsent(s, user, org, { platform, kind: 'source' });

const reuseLogin = (user: TestUser | null, fromId: string, org = orgId) =>
  call(s.reuse, { method: 'POST', token: user?.token, query: { orgId: org }, body: { fromId, kind: 'destination' } });

const destinationCount = async (org: string) =>
  (await adminDb().collection('organizations').doc(org).collection('destinations').get()).size;

describe("a source's login reused as a conversion destination", () => {
  test('Meta: a member gets a destination on the same login, with its own sealed copy, that reaches the pixels', async () => {
    const fromId = await connectSource(owner, 'meta_ads');
    const reused = await reuseLogin(member, fromId);
    expect(reused.status).toBe(200);
    expect(reused.body.destination).toMatchObject({ platform: 'meta_ads', accountName: 'Sandbox Marketer', status: 'active' });
    expect(JSON.stringify(reused.body)).not.toMatch(/sealed|credential|accessToken/i);
    const id = reused.body.destination.id as string;

    // The destination opens a session of its own: accounts, then the pixels of a picked one.
    const accounts = await call(s.destinationAccounts, { token: member.token, query: { orgId, id } });
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts.map((account: { id: string }) => account.id)).toEqual(['101', '102']);
    await call(s.destination, { method: 'PATCH', token: member.token, query: { orgId, id }, body: { accountIds: ['101'] } });
    const pixels = await call(s.targets, { token: member.token, query: { orgId, id, accountId: '101' } });
    expect(pixels.body.targets).toEqual([{ id: '555000111', name: 'Acme Shoes Pixel' }]);

    // Its credential is a copy under its own id, not the source's.
    const [sourceDoc, destinationDoc] = await Promise.all([
      adminDb().doc(`organizations/${orgId}/sources/${fromId}`).get(),
      adminDb().doc(`organizations/${orgId}/destinations/${id}`).get(),
    ]);
    expect(destinationDoc.get('credential_id')).not.toBe(sourceDoc.get('credential_id'));
    // The source still works.
    expect((await call(s.sourceAccounts, { token: owner.token, query: { orgId, id: fromId } })).status).toBe(200);
  });

  test('Google Ads: the destination lists the accounts the login reaches', async () => {
    const fromId = await connectSource(owner, 'google_ads');
    const reused = await reuseLogin(owner, fromId);
    expect(reused.status).toBe(200);
    expect(reused.body.destination).toMatchObject({ platform: 'google_ads', accountName: 'sandbox.marketer@example.com' });
    const accounts = await call(s.destinationAccounts, { token: owner.token, query: { orgId, id: reused.body.destination.id } });
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts.map((account: { id: string }) => account.id)).toContain('5556667778');
  });

  test("another organization's source id is a 404, and an outsider gets 404; nothing is created", async () => {
    const foreign = await connectSource(outsider, 'meta_ads', otherOrg);
    const before = await destinationCount(orgId);
    const crossed = await reuseLogin(owner, foreign);
    expect(crossed.status).toBe(404);
    const mine = await connectSource(owner, 'meta_ads');
    expect((await reuseLogin(outsider, mine)).status).toBe(404);
    // Through their own organization, the outsider cannot name our source either.
    expect((await reuseLogin(outsider, mine, otherOrg)).status).toBe(404);
    expect((await reuseLogin(null, mine)).status).toBe(401);
    expect(await destinationCount(orgId)).toBe(before);
  });

  test('a source whose login needs reconnecting is a clear 409, and bad input a 400', async () => {
    const fromId = await connectSource(owner, 'google_ads');
    platforms.revokeAll('google');
    expect((await call(s.sourceAccounts, { token: owner.token, query: { orgId, id: fromId } })).body.code).toBe('needs_reauth');
    const before = await destinationCount(orgId);
    const refused = await reuseLogin(owner, fromId);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('needs_reauth');
    expect(refused.body.message).toMatch(/needs reconnecting/);

    const badKind = await call(s.reuse, { method: 'POST', token: owner.token, query: { orgId }, body: { fromId, kind: 'source' } });
    expect(badKind.status).toBe(400);
    expect(badKind.body.fieldErrors.kind).toBeDefined();
    expect((await reuseLogin(owner, 'no-such-source')).status).toBe(404);
    expect(await destinationCount(orgId)).toBe(before);
  });
});
