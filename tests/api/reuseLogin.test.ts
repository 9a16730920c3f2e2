import complete from '@/pages/api/orgs/[orgId]/oauth/complete';
import start from '@/pages/api/orgs/[orgId]/oauth/start';
import destinationAccounts from '@/pages/api/orgs/[orgId]/destinations/[id]/accounts';
import destination from '@/pages/api/orgs/[orgId]/destinations/[id]/index';
import targets from '@/pages/api/orgs/[orgId]/destinations/[id]/targets';
import reuse from '@/pages/api/orgs/[orgId]/integrations/reuse';
import source from '@/pages/api/orgs/[orgId]/sources/[id]/index';
import sourceAccounts from '@/pages/api/orgs/[orgId]/sources/[id]/accounts';
import sourceUsage from '@/pages/api/orgs/[orgId]/sources/[id]/usage';
import conversionRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/index';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { createConversion } from '@/lib/server/services/conversions';
import { createShopApp } from '@/tests/api/helpers/conversions';
import { type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { connectThroughConsent } from '@/tests/api/helpers/oauth';
import { callLoose as call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

const APP_URL = 'http://app.test';
const handlers = {
  complete,
  start,
  conversionRoute,
  destinationAccounts,
  destination,
  targets,
  reuse,
  source,
  sourceAccounts,
  sourceUsage,
};
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
  test('Meta: a member gets a destination on the same login (no copy), named apart, with the accounts picked on the source', async () => {
    const fromId = await connectSource(owner, 'meta_ads');
    const picked = await call(s.source, {
      method: 'PATCH',
      token: owner.token,
      query: { orgId, id: fromId },
      body: { accountIds: ['101'] },
    });
    expect(picked.status).toBe(200);
    const credentialCount = async () => (await adminDb().collection(`organizations/${orgId}/credentials`).get()).size;
    const credentialsBefore = await credentialCount();
    const reused = await reuseLogin(member, fromId);
    expect(reused.status).toBe(200);
    expect(reused.body.destination).toMatchObject({
      platform: 'meta_ads',
      accountName: 'Sandbox Marketer',
      status: 'active',
      name: 'Meta Ads conversions · Sandbox Marketer',
      loginSourceId: fromId,
    });
    expect(reused.body.destination.name).not.toBe(picked.body.source.name);
    // Accounts are picked once: the source's are the destination's.
    expect(reused.body.destination.accounts.map((account: { id: string }) => account.id)).toEqual(['101']);
    expect(JSON.stringify(reused.body)).not.toMatch(/sealed|credential|accessToken/i);
    const id = reused.body.destination.id as string;

    // The destination opens a session on the login: accounts, then the pixels of its account.
    const accounts = await call(s.destinationAccounts, { token: member.token, query: { orgId, id } });
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts.map((account: { id: string }) => account.id)).toEqual(['101', '102']);
    const pixels = await call(s.targets, { token: member.token, query: { orgId, id, accountId: '101' } });
    expect(pixels.body.targets).toEqual([{ id: '555000111', name: 'Acme Shoes Pixel' }]);

    // One login: the destination refers to the source's credential, and no second credential was written.
    const [sourceDoc, destinationDoc] = await Promise.all([
      adminDb().doc(`organizations/${orgId}/sources/${fromId}`).get(),
      adminDb().doc(`organizations/${orgId}/destinations/${id}`).get(),
    ]);
    expect(destinationDoc.get('credential_id')).toBe(sourceDoc.get('credential_id'));
    expect(await credentialCount()).toBe(credentialsBefore);
    // Offered again (a second click, another tab), it is the same destination.
    const again = await reuseLogin(owner, fromId);
    expect(again.status).toBe(200);
    expect(again.body.destination.id).toBe(id);
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

  test('a dead login marks both directions, and reconnecting the source mends the destination and its conversion too', async () => {
    const fromId = await connectSource(owner, 'meta_ads');
    await call(s.source, { method: 'PATCH', token: owner.token, query: { orgId, id: fromId }, body: { accountIds: ['101'] } });
    const id = (await reuseLogin(owner, fromId)).body.destination.id as string;
    const app = await createShopApp(orgId, owner.uid);
    const conversion = await createConversion(orgId, 'growth', owner.uid, {
      name: 'Leads on the shared login',
      source: { type: 'app', appId: app.id },
      destination: { destinationId: id, accountId: '101', targetId: '555000111' },
      mapping: { events: ['Lead'], value: { mode: 'event' }, identifiers: ['email'] },
    });
    const conversionStatus = async () =>
      ((await call(s.conversionRoute, { token: owner.token, query: { orgId, id: conversion.id } })).body.conversion as { status: string })
        .status;
    expect(await conversionStatus()).toBe('active');
    platforms.revokeAll('meta');
    // Noticed on the destination: the source is on the same login, so it needs reconnecting too.
    expect((await call(s.destinationAccounts, { token: owner.token, query: { orgId, id } })).body.code).toBe('needs_reauth');
    const marked = await call(s.source, { token: owner.token, query: { orgId, id: fromId } });
    expect(marked.body.source.status).toBe('needs_reauth');
    expect(await conversionStatus()).toBe('needs_reauth');

    // One reconnect of the source, through the consent.
    const reconnected = await connectThroughConsent(s, owner, orgId, { platform: 'meta_ads', kind: 'source', objectId: fromId });
    expect(reconnected).toBe(fromId);
    const mended = await call(s.destination, { token: owner.token, query: { orgId, id } });
    expect(mended.body.destination.status).toBe('active');
    expect(await conversionStatus()).toBe('active');
    const accounts = await call(s.destinationAccounts, { token: owner.token, query: { orgId, id } });
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts.map((account: { id: string }) => account.id)).toEqual(['101', '102']);
  });

  test('deleting a source whose login a destination uses: the usage says so, the destination keeps working', async () => {
    const fromId = await connectSource(owner, 'meta_ads');
    const id = (await reuseLogin(owner, fromId)).body.destination.id as string;
    const credentialId = (await adminDb().doc(`organizations/${orgId}/sources/${fromId}`).get()).get('credential_id') as string;

    const usage = await call(s.sourceUsage, { token: owner.token, query: { orgId, id: fromId } });
    expect(usage.status).toBe(200);
    expect(usage.body.usage).toMatchObject({
      connections: [],
      conversions: [],
      sharedLogin: [{ id, kind: 'destination', name: 'Meta Ads conversions · Sandbox Marketer' }],
    });
    // Another organization cannot read it.
    expect((await call(s.sourceUsage, { token: outsider.token, query: { orgId, id: fromId } })).status).toBe(404);
    expect((await call(s.source, { method: 'DELETE', token: outsider.token, query: { orgId, id: fromId } })).status).toBe(404);

    const deleted = await call(s.source, { method: 'DELETE', token: owner.token, query: { orgId, id: fromId } });
    expect(deleted.status).toBeLessThan(300);
    expect((await call(s.source, { token: owner.token, query: { orgId, id: fromId } })).status).toBe(404);
    // The login stays for the destination, which still reaches its accounts and no longer names the source.
    expect((await adminDb().doc(`organizations/${orgId}/credentials/${credentialId}`).get()).exists).toBe(true);
    const kept = await call(s.destination, { token: owner.token, query: { orgId, id } });
    expect(kept.body.destination.loginSourceId).toBeUndefined();
    expect((await call(s.destinationAccounts, { token: owner.token, query: { orgId, id } })).status).toBe(200);

    // The last object on the login takes it with it.
    expect((await call(s.destination, { method: 'DELETE', token: owner.token, query: { orgId, id } })).status).toBeLessThan(300);
    expect((await adminDb().doc(`organizations/${orgId}/credentials/${credentialId}`).get()).exists).toBe(false);
  });
});
