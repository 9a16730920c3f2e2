import { generateKeyPairSync } from 'node:crypto';
import { Timestamp } from 'firebase-admin/firestore';
import deleteRoute from '@/pages/api/delete';
import getOrganizationData from '@/pages/api/getOrganizationData';
import submissions from '@/pages/api/submissions';
import apps from '@/pages/api/orgs/[orgId]/apps/index';
import app from '@/pages/api/orgs/[orgId]/apps/[id]/index';
import appKey from '@/pages/api/orgs/[orgId]/apps/[id]/key';
import appRouting from '@/pages/api/orgs/[orgId]/apps/[id]/routing';
import destinations from '@/pages/api/orgs/[orgId]/destinations/index';
import destination from '@/pages/api/orgs/[orgId]/destinations/[id]/index';
import destinationAccounts from '@/pages/api/orgs/[orgId]/destinations/[id]/accounts';
import targets from '@/pages/api/orgs/[orgId]/destinations/[id]/targets';
import complete from '@/pages/api/orgs/[orgId]/oauth/complete';
import start from '@/pages/api/orgs/[orgId]/oauth/start';
import payments from '@/pages/api/orgs/[orgId]/payments/index';
import sources from '@/pages/api/orgs/[orgId]/sources/index';
import source from '@/pages/api/orgs/[orgId]/sources/[id]/index';
import sourceAccounts from '@/pages/api/orgs/[orgId]/sources/[id]/accounts';
import sourceUsage from '@/pages/api/orgs/[orgId]/sources/[id]/usage';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { createState, STATE_TTL_MS } from '@/lib/server/oauth/state';
import { completionOf, consentTo, type FakePlatforms, platformsEnv, SANDBOX_MIXPANEL, startFakePlatforms } from '@/sandbox/platforms';
import { startFakeStripe, stripeEnv, type FakeStripe } from '@/sandbox/stripe';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { connectThroughConsent } from '@/tests/api/helpers/oauth';
import { callLoose as call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// These tests read deep into response bodies; a loose type keeps them readable.
const APP_URL = 'http://app.test';
const handlers = {
  deleteRoute,
  getOrganizationData,
  submissions,
  apps,
  app,
  appKey,
  appRouting,
  destinations,
  destination,
  destinationAccounts,
  targets,
  complete,
  start,
  payments,
  sources,
  source,
  sourceAccounts,
  sourceUsage,
};
let s: Record<keyof typeof handlers, TestServer>;
let platforms: FakePlatforms;
let stripe: FakeStripe;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;
let orgId: string;
let otherOrg: string;

beforeAll(async () => {
  s = await serveHandlers(handlers);
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  stripe = await startFakeStripe({ webhookUrl: 'http://127.0.0.1:9/' });
  Object.assign(process.env, platformsEnv(platforms), stripeEnv(stripe), { APP_URL });
  [owner, admin, member, outsider] = await Promise.all([createTestUser(), createTestUser(), createTestUser(), createTestUser()]);
  orgId = await createTestOrganization([
    [owner, 'owner'],
    [admin, 'admin'],
    [member, 'member'],
  ]);
  // The owner also owns a second organization, and the outsider has one of their own.
  otherOrg = await createTestOrganization([
    [outsider, 'owner'],
    [owner, 'owner'],
  ]);
});
afterAll(async () => {
  await closeAll(s);
  await Promise.all([platforms.close(), stripe.close()]);
});

async function startFlow(user: TestUser, org: string, body: Record<string, unknown>) {
  const response = await call(s.start, { method: 'POST', token: user.token, query: { orgId: org }, body });
  expect(response.status).toBe(200);
  return response.body.url as string;
}

/** Connects a platform end to end and returns the created object's id. */
const connect = (user: TestUser, platform: string, kind: 'source' | 'destination', org = orgId) =>
  connectThroughConsent(s, user, org, { platform, kind });

describe('OAuth consent flows', () => {
  test('Google Ads: consent, code exchange, a source with the login name and no credential in sight', async () => {
    const url = new URL(await startFlow(owner, orgId, { platform: 'google_ads', kind: 'source' }));
    expect(url.searchParams.get('access_type')).toBe('offline');
    expect(url.searchParams.get('prompt')).toBe('consent');
    expect(url.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/adwords');
    expect(url.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/datamanager');
    expect(url.searchParams.get('redirect_uri')).toBe(`${APP_URL}/addSource`);

    const id = await connect(owner, 'google_ads', 'source');
    const got = await call(s.source, { token: member.token, query: { orgId, id } });
    expect(got.status).toBe(200);
    expect(got.body.source).toMatchObject({ platform: 'google_ads', accountName: 'sandbox.marketer@example.com', status: 'active' });
    expect(JSON.stringify(got.body)).not.toMatch(/1\/\/0g|refresh|sealed|credential/i);

    const stored = await adminDb().collection('organizations').doc(orgId).collection('credentials').get();
    expect(stored.docs.length).toBeGreaterThan(0);
    for (const doc of stored.docs) expect(JSON.stringify(doc.data())).not.toContain('1//0g');
  });

  test('Google Ads accounts include clients under a manager; only reachable, non-manager accounts can be picked', async () => {
    const id = await connect(owner, 'google_ads', 'source');
    const accounts = await call(s.sourceAccounts, { token: member.token, query: { orgId, id } });
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: '1112223334', isManager: true, managerId: null }),
        expect.objectContaining({ id: '1234567890', name: 'Acme Shoes', managerId: '1112223334' }),
        expect.objectContaining({ id: '5556667778', managerId: null }),
      ]),
    );
    const picked = await call(s.source, {
      method: 'PATCH',
      token: member.token,
      query: { orgId, id },
      body: { accountIds: ['1234567890', '5556667778'] },
    });
    expect(picked.status).toBe(200);
    expect(picked.body.source.accounts.map((account: { id: string }) => account.id).sort()).toEqual(['1234567890', '5556667778']);

    const manager = await call(s.source, {
      method: 'PATCH',
      token: member.token,
      query: { orgId, id },
      body: { accountIds: ['1112223334'] },
    });
    expect(manager.status).toBe(400);
    const foreign = await call(s.source, {
      method: 'PATCH',
      token: member.token,
      query: { orgId, id },
      body: { accountIds: ['9999999999'] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.fieldErrors.accountIds).toBeDefined();
    const after = await call(s.source, { token: member.token, query: { orgId, id } });
    expect(after.body.source.accounts).toHaveLength(2);
  });

  test('Meta: a long-lived token, ad accounts and their pixels', async () => {
    const url = new URL(await startFlow(owner, orgId, { platform: 'meta_ads', kind: 'destination' }));
    expect(url.searchParams.get('scope')).toBe('ads_management,ads_read,business_management');
    const id = await connect(owner, 'meta_ads', 'destination');
    const accounts = await call(s.destinationAccounts, { token: owner.token, query: { orgId, id } });
    expect(accounts.body.accounts.map((account: { id: string }) => account.id)).toEqual(['101', '102']);
    await call(s.destination, { method: 'PATCH', token: owner.token, query: { orgId, id }, body: { accountIds: ['101'] } });
    const pixels = await call(s.targets, { token: owner.token, query: { orgId, id, accountId: '101' } });
    expect(pixels.body.targets).toEqual([{ id: '555000111', name: 'Acme Shoes Pixel' }]);
    const unpicked = await call(s.targets, { token: owner.token, query: { orgId, id, accountId: '102' } });
    expect(unpicked.status).toBe(404);
  });

  test('Microsoft: the offline_access scope, accounts and conversion goals', async () => {
    const url = new URL(await startFlow(owner, orgId, { platform: 'microsoft_ads', kind: 'destination' }));
    expect(url.searchParams.get('scope')).toBe('https://ads.microsoft.com/msads.manage offline_access');
    const id = await connect(owner, 'microsoft_ads', 'destination');
    const accounts = await call(s.destinationAccounts, { token: owner.token, query: { orgId, id } });
    expect(accounts.body.accounts[0]).toMatchObject({ id: '301', managerId: '9001' });
    await call(s.destination, { method: 'PATCH', token: owner.token, query: { orgId, id }, body: { accountIds: ['301'] } });
    // Microsoft rotates refresh tokens: the second call works only if the first one's new token was kept.
    const goals = await call(s.targets, { token: owner.token, query: { orgId, id, accountId: '301' } });
    expect(goals.status).toBe(200);
    expect(goals.body.targets[0]).toEqual({ id: '8001', name: 'Offline purchase' });
  });

  test('BigQuery with a Google login: the BigQuery scope, back through /bigquery, its projects to pick', async () => {
    const url = new URL(await startFlow(member, orgId, { platform: 'bigquery', kind: 'destination' }));
    expect(url.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/bigquery');
    expect(url.searchParams.get('redirect_uri')).toBe(`${APP_URL}/bigquery`);
    const id = await connect(member, 'bigquery', 'destination');
    const projects = await call(s.destinationAccounts, { token: member.token, query: { orgId, id } });
    expect(projects.body.accounts.map((project: { id: string }) => project.id)).toEqual(['acme-analytics', 'acme-warehouse']);
  });

  test('an organization without a subscription cannot connect or list accounts, and gets 402', async () => {
    const lapsed = await createTestOrganization([[owner, 'owner']], { subscription: null });
    const started = await call(s.start, {
      method: 'POST',
      token: owner.token,
      query: { orgId: lapsed },
      body: { platform: 'google_ads', kind: 'source' },
    });
    expect(started.status).toBe(402);
    expect(started.body.code).toBe('subscription_required');
    expect((await call(s.sources, { token: owner.token, query: { orgId: lapsed } })).status).toBe(402);
  });

  test('a platform that cannot be that kind is refused', async () => {
    const response = await call(s.start, {
      method: 'POST',
      token: owner.token,
      query: { orgId },
      body: { platform: 'bigquery', kind: 'source' },
    });
    expect(response.status).toBe(400);
  });
});

describe('the state parameter', () => {
  async function startAndConsent(user: TestUser, org: string) {
    return consentTo(await startFlow(user, org, { platform: 'google_ads', kind: 'source' }));
  }
  const finish = (user: TestUser, org: string, returned: URL, overrides: Record<string, string> = {}) =>
    call(s.complete, {
      method: 'POST',
      token: user.token,
      query: { orgId: org },
      body: { ...completionOf(returned), ...overrides },
    });
  const countSources = async (org: string) => (await adminDb().collection('organizations').doc(org).collection('sources').get()).size;

  test('a replayed state is refused', async () => {
    const returned = await startAndConsent(owner, orgId);
    expect((await finish(owner, orgId, returned)).status).toBe(200);
    const before = await countSources(orgId);
    const replay = await finish(owner, orgId, returned);
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('invalid_state');
    expect(await countSources(orgId)).toBe(before);
  });

  test('a state from another organization is refused, even for a member of both', async () => {
    const returned = await startAndConsent(owner, orgId);
    const before = await countSources(otherOrg);
    const response = await finish(owner, otherOrg, returned);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_state');
    expect(await countSources(otherOrg)).toBe(before);
  });

  test('a state started by another user is refused', async () => {
    const returned = await startAndConsent(owner, orgId);
    expect((await finish(admin, orgId, returned)).body.code).toBe('invalid_state');
  });

  test('an expired state is refused', async () => {
    const state = await createState(
      { orgId, uid: owner.uid, platform: 'google_ads', kind: 'source', objectId: null, redirectUri: `${APP_URL}/addSource` },
      Date.now() - STATE_TTL_MS - 1000,
    );
    const response = await call(s.complete, {
      method: 'POST',
      token: owner.token,
      query: { orgId },
      body: { state, code: 'x', returnPath: '/addSource' },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_state');
  });

  test('a forged or altered state is refused', async () => {
    const returned = await startAndConsent(owner, orgId);
    const [nonce] = returned.searchParams.get('state')!.split('.');
    const forged = await finish(owner, orgId, returned, { state: `${nonce}.AAAA` });
    expect(forged.body.code).toBe('invalid_state');
  });

  test('a code brought back to another return route is refused', async () => {
    const returned = await startAndConsent(owner, orgId);
    expect((await finish(owner, orgId, returned, { returnPath: '/addDestination' })).body.code).toBe('invalid_state');
  });

  test('an outsider cannot start or finish a flow in the organization', async () => {
    const started = await call(s.start, {
      method: 'POST',
      token: outsider.token,
      query: { orgId },
      body: { platform: 'google_ads', kind: 'source' },
    });
    expect(started.status).toBe(404);
    const returned = await startAndConsent(owner, orgId);
    expect((await finish(outsider, orgId, returned)).status).toBe(404);
  });
});

describe('needs reauth and reconnecting', () => {
  test('a revoked Google login marks the source; reconnecting through /googleReauth brings it back', async () => {
    const id = await connect(owner, 'google_ads', 'source');
    platforms.revokeAll('google');
    const failed = await call(s.sourceAccounts, { token: owner.token, query: { orgId, id } });
    expect(failed.status).toBe(409);
    expect(failed.body.code).toBe('needs_reauth');
    expect(failed.body.message).toMatch(/Reconnect/);
    expect((await call(s.source, { token: owner.token, query: { orgId, id } })).body.source.status).toBe('needs_reauth');

    const url = new URL(await startFlow(owner, orgId, { platform: 'google_ads', kind: 'source', objectId: id }));
    expect(url.searchParams.get('redirect_uri')).toBe(`${APP_URL}/googleReauth`);
    const returned = await consentTo(url.toString());
    const done = await call(s.complete, {
      method: 'POST',
      token: owner.token,
      query: { orgId },
      body: { ...completionOf(returned), returnPath: '/googleReauth' },
    });
    expect(done.body).toMatchObject({ id, reauthenticated: true });
    expect((await call(s.source, { token: owner.token, query: { orgId, id } })).body.source.status).toBe('active');
    expect((await call(s.sourceAccounts, { token: owner.token, query: { orgId, id } })).status).toBe(200);
  });

  test('a Meta token invalidated at Meta (code 190) marks the destination', async () => {
    const id = await connect(owner, 'meta_ads', 'destination');
    platforms.revokeAll('meta');
    expect((await call(s.destinationAccounts, { token: owner.token, query: { orgId, id } })).body.code).toBe('needs_reauth');
    expect((await call(s.destination, { token: owner.token, query: { orgId, id } })).body.destination.status).toBe('needs_reauth');
  });
});

describe('credentials checked on save', () => {
  const mixpanel = (overrides: Record<string, string> = {}) => ({
    platform: 'mixpanel',
    name: 'Product analytics',
    username: SANDBOX_MIXPANEL.username,
    secret: SANDBOX_MIXPANEL.secret,
    projectId: SANDBOX_MIXPANEL.projects.EU.id,
    residency: 'EU',
    ...overrides,
  });

  test('Mixpanel: a wrong secret or the wrong data residency is refused; a good one is saved without its secret', async () => {
    const wrong = await call(s.destinations, { method: 'POST', token: member.token, query: { orgId }, body: mixpanel({ secret: 'nope' }) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.fieldErrors.secret[0]).toMatch(/did not accept/);
    const residency = await call(s.destinations, {
      method: 'POST',
      token: member.token,
      query: { orgId },
      body: mixpanel({ residency: 'US' }),
    });
    expect(residency.status).toBe(400);
    expect(residency.body.message).toMatch(/data residency/);
    const good = await call(s.destinations, { method: 'POST', token: member.token, query: { orgId }, body: mixpanel() });
    expect(good.status).toBe(200);
    expect(good.body.destination).toMatchObject({
      platform: 'mixpanel',
      accountName: 'Acme Web (EU)',
      settings: { projectId: '3002', residency: 'EU' },
    });
    expect(JSON.stringify(good.body)).not.toContain(SANDBOX_MIXPANEL.secret);
    // What the create answers is what is stored, connection time included.
    const read = await call(s.destination, { token: member.token, query: { orgId, id: good.body.destination.id } });
    expect(read.body.destination).toEqual(good.body.destination);
  });

  test('BigQuery: a service-account key is checked with Google; a broken one is refused', async () => {
    const good = await call(s.destinations, {
      method: 'POST',
      token: owner.token,
      query: { orgId },
      body: { platform: 'bigquery', name: 'Warehouse', serviceAccountKey: platforms.serviceAccountKey },
    });
    expect(good.status).toBe(200);
    expect(good.body.destination).toMatchObject({
      platform: 'bigquery',
      accountName: 'signalbridge@acme-warehouse.iam.gserviceaccount.com',
    });
    expect(JSON.stringify(good.body)).not.toContain('PRIVATE KEY');
    const sandboxKey = JSON.parse(platforms.serviceAccountKey) as Record<string, string>;
    const post = (key: Record<string, string>) =>
      call(s.destinations, {
        method: 'POST',
        token: owner.token,
        query: { orgId },
        body: { platform: 'bigquery', name: 'Warehouse', serviceAccountKey: JSON.stringify(key) },
      });
    const before = (await call(s.destinations, { token: owner.token, query: { orgId } })).body.destinations.length;
    // Google refuses a well-formed key of an account it does not know, and a key signed by another private key.
    const unknownAccount = await post({ ...sandboxKey, client_email: 'someone-else@acme-warehouse.iam.gserviceaccount.com' });
    expect(unknownAccount.status).toBe(400);
    expect(unknownAccount.body.fieldErrors.serviceAccountKey[0]).toMatch(/did not accept this service account key/);
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect((await post({ ...sandboxKey, private_key: otherKey })).status).toBe(400);
    expect((await post({ ...sandboxKey, private_key: 'not a key' })).status).toBe(400);
    expect((await post({ type: 'authorized_user' } as Record<string, string>)).body.fieldErrors.serviceAccountKey).toBeDefined();
    expect((await call(s.destinations, { token: owner.token, query: { orgId } })).body.destinations).toHaveLength(before);
  });

  test('Stripe: secret keys and keys without charge access are refused; a restricted key is saved as a prefix', async () => {
    const post = (apiKey: string) =>
      call(s.payments, { method: 'POST', token: owner.token, query: { orgId }, body: { name: 'Store', apiKey } });
    expect((await post('sk_test_abc')).body.fieldErrors.apiKey[0]).toMatch(/restricted key/);
    expect((await post('rk_test_sandboxNoCharges')).body.fieldErrors.apiKey[0]).toMatch(/Charges: Read/);
    expect((await post('rk_test_unknown')).status).toBe(400);
    const saved = await post('rk_test_sandboxChargesRead');
    expect(saved.status).toBe(200);
    expect(saved.body.payment).toMatchObject({ name: 'Store', livemode: false, keyPrefix: 'rk_test_sand…' });
    expect(JSON.stringify(saved.body)).not.toContain('rk_test_sandboxChargesRead');
  });
});

describe('apps', () => {
  const fields = {
    name: 'Acme store',
    websiteUrl: 'https://acme.example',
    gtmContainerId: 'GTM-AB12CD',
    payloadUrls: ['/checkout/thank-you'],
  };

  test('GTM ids and payload URLs are validated; nothing is saved on bad input', async () => {
    const before = (await call(s.apps, { token: member.token, query: { orgId } })).body.apps.length;
    const gtm = await call(s.apps, {
      method: 'POST',
      token: member.token,
      query: { orgId },
      body: { ...fields, gtmContainerId: 'gtm-ab12' },
    });
    expect(gtm.status).toBe(400);
    expect(gtm.body.fieldErrors.gtmContainerId[0]).toMatch(/GTM- followed by uppercase letters and digits/);
    const host = await call(s.apps, {
      method: 'POST',
      token: member.token,
      query: { orgId },
      body: { ...fields, payloadUrls: ['https://evil.example/thanks'] },
    });
    expect(host.body.fieldErrors['payloadUrls.0']).toEqual(['Payload URLs must not contain a host']);
    expect((await call(s.apps, { token: member.token, query: { orgId } })).body.apps).toHaveLength(before);
  });

  test('an app without a tag manager is added (most shops have none); emptied later, the id is removed; a wrong one is still refused', async () => {
    const withoutGtm = { name: 'Shopify store', websiteUrl: 'https://store.example', payloadUrls: [] };
    const created = await call(s.apps, { method: 'POST', token: member.token, query: { orgId }, body: withoutGtm });
    expect(created.status).toBe(200);
    expect(created.body.app).toMatchObject({ ...withoutGtm, gtmContainerId: null });
    const empty = await call(s.apps, {
      method: 'POST',
      token: member.token,
      query: { orgId },
      body: { ...withoutGtm, gtmContainerId: ' ' },
    });
    expect(empty.body.app.gtmContainerId).toBeNull();

    const id = created.body.app.id as string;
    const given = await call(s.app, { method: 'PATCH', token: member.token, query: { orgId, id }, body: { gtmContainerId: 'GTM-SHOP9' } });
    expect(given.body.app.gtmContainerId).toBe('GTM-SHOP9');
    const wrong = await call(s.app, { method: 'PATCH', token: member.token, query: { orgId, id }, body: { gtmContainerId: 'GTM 123' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.fieldErrors).toEqual({
      gtmContainerId: ['A tag-manager identifier must match GTM- followed by uppercase letters and digits'],
    });
    const emptied = await call(s.app, { method: 'PATCH', token: member.token, query: { orgId, id }, body: { gtmContainerId: '' } });
    expect(emptied.body.app.gtmContainerId).toBeNull();
    const listed = (await call(s.apps, { token: member.token, query: { orgId } })).body.apps as Array<{
      id: string;
      gtmContainerId: unknown;
    }>;
    expect(listed.find((app) => app.id === id)?.gtmContainerId).toBeNull();
    // Someone of another organization finds no such app, and changes nothing.
    const outsiderEdit = await call(s.app, {
      method: 'PATCH',
      token: outsider.token,
      query: { orgId, id },
      body: { gtmContainerId: 'GTM-EVIL1' },
    });
    expect(outsiderEdit.status).toBe(404);
    expect((await call(s.app, { token: member.token, query: { orgId, id } })).body.app.gtmContainerId).toBeNull();
  });

  test('conversions routed to a pixel the Meta account really has; a revocable submission key', async () => {
    const created = await call(s.apps, { method: 'POST', token: member.token, query: { orgId }, body: fields });
    expect(created.status).toBe(200);
    const appId = created.body.app.id as string;
    const meta = await connect(owner, 'meta_ads', 'destination');
    await call(s.destination, { method: 'PATCH', token: owner.token, query: { orgId, id: meta }, body: { accountIds: ['101'] } });

    const route = (targetId: string) =>
      call(s.appRouting, {
        method: 'PUT',
        token: member.token,
        query: { orgId, id: appId },
        body: { platform: 'meta_ads', destinationId: meta, accountId: '101', targetId },
      });
    expect((await route('999')).body.fieldErrors.targetId).toBeDefined();
    const routed = await route('555000111');
    expect(routed.body.app.targets.meta_ads).toMatchObject({ destinationId: meta, targetId: '555000111', targetName: 'Acme Shoes Pixel' });
    // The routing is a conversion the delivery worker sends (every event of the app, to that pixel).
    const routing = await adminDb().collection('organizations').doc(orgId).collection('conversions').doc(`app-${appId}-meta_ads`).get();
    expect(routing.data()).toMatchObject({
      routing: true,
      status: 'active',
      source_key: `app:${appId}`,
      destination_id: meta,
      destination: { target_id: '555000111' },
    });

    // The destination is now in use: deleting it says so and keeps it.
    const blocked = await call(s.destination, { method: 'DELETE', token: owner.token, query: { orgId, id: meta } });
    expect(blocked.status).toBe(409);
    expect(blocked.body.message).toMatch(/still used by 1 app/);

    // Members configure the app; its key (which stops whatever posts with it when replaced) is the owners' and admins'.
    expect((await call(s.appKey, { method: 'POST', token: member.token, query: { orgId, id: appId } })).status).toBe(403);
    const key = await call(s.appKey, { method: 'POST', token: owner.token, query: { orgId, id: appId } });
    expect(key.body.key).toMatch(/^sbk_/);
    const submit = (bearer: string) =>
      fetch(`${s.submissions.url}/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ event: 'Lead', email: 'a@b.co' }),
      });
    expect((await submit(key.body.key)).status).toBe(202);
    await call(s.appKey, { method: 'DELETE', token: owner.token, query: { orgId, id: appId } });
    expect((await submit(key.body.key)).status).toBe(401);
  });
});

describe('tenant isolation and roles', () => {
  let sourceId: string;
  beforeAll(async () => {
    sourceId = await connect(owner, 'google_ads', 'source');
  });

  test("an outsider can neither see nor change nor delete the organization's objects", async () => {
    expect((await call(s.sources, { token: outsider.token, query: { orgId } })).status).toBe(404);
    expect((await call(s.source, { token: outsider.token, query: { orgId, id: sourceId } })).status).toBe(404);
    expect(
      (await call(s.source, { method: 'PATCH', token: outsider.token, query: { orgId, id: sourceId }, body: { name: 'x' } })).status,
    ).toBe(404);
    expect((await call(s.source, { method: 'DELETE', token: outsider.token, query: { orgId, id: sourceId } })).status).toBe(404);
    expect((await call(s.getOrganizationData, { token: outsider.token, query: { documentId: orgId, type: 'sources' } })).status).toBe(404);
    expect((await call(s.deleteRoute, { token: outsider.token, query: { documentId: orgId, type: 'source', key: sourceId } })).status).toBe(
      404,
    );
    // Through their own organization, the id of another organization's source leads nowhere.
    expect((await call(s.source, { token: outsider.token, query: { orgId: otherOrg, id: sourceId } })).status).toBe(404);
    expect(
      (await call(s.deleteRoute, { token: outsider.token, query: { documentId: otherOrg, type: 'source', key: sourceId } })).status,
    ).toBe(404);
    expect((await call(s.source, { token: owner.token, query: { orgId, id: sourceId } })).status).toBe(200);
  });

  test('changing something that does not exist is a 404 and creates nothing', async () => {
    const missing = { orgId, id: 'no-such-object' };
    expect((await call(s.source, { method: 'PATCH', token: owner.token, query: missing, body: { name: 'x' } })).status).toBe(404);
    expect((await call(s.app, { method: 'PATCH', token: owner.token, query: missing, body: { name: 'x' } })).status).toBe(404);
    const snap = await adminDb().collection('organizations').doc(orgId).collection('sources').doc('no-such-object').get();
    expect(snap.exists).toBe(false);
  });

  test('signed out is 401', async () => {
    expect((await call(s.sources, { query: { orgId } })).status).toBe(401);
    expect((await call(s.deleteRoute, { query: { documentId: orgId, type: 'source', key: sourceId } })).status).toBe(401);
  });

  // The tenant × role matrix: what each caller gets for each action on a source of the organization.
  const matrix = [
    ['owner', 200, 200, 200, 200, 200],
    ['admin', 200, 200, 200, 200, 'deletes'],
    ['member', 200, 200, 200, 200, 403],
    ['outsider', 404, 404, 404, 404, 404],
    ['signed out', 401, 401, 401, 401, 401],
  ] as const;
  test.each(matrix)('%s: list %s, read %s, rename %s, start a connection %s, delete %s', async (who, list, read, rename, start, remove) => {
    const user = { owner, admin, member, outsider, 'signed out': null }[who];
    const token = user?.token;
    const id = remove === 'deletes' ? await connect(owner, 'google_ads', 'source') : sourceId;
    expect((await call(s.sources, { token, query: { orgId } })).status).toBe(list);
    expect((await call(s.source, { token, query: { orgId, id } })).status).toBe(read);
    expect((await call(s.source, { method: 'PATCH', token, query: { orgId, id }, body: { name: `Renamed by ${who}` } })).status).toBe(
      rename,
    );
    expect((await call(s.start, { method: 'POST', token, query: { orgId }, body: { platform: 'meta_ads', kind: 'source' } })).status).toBe(
      start,
    );
    const deleted = await call(s.source, { method: 'DELETE', token, query: { orgId, id } });
    expect(deleted.status).toBe(remove === 'deletes' ? 200 : remove);
    if (remove === 200) sourceId = await connect(owner, 'google_ads', 'source');
  });

  test('getOrganizationData lists the objects of a type for members', async () => {
    const response = await call(s.getOrganizationData, { token: member.token, query: { documentId: orgId, type: 'sources' } });
    expect(response.status).toBe(200);
    expect(response.body.data.map((item: { id: string }) => item.id)).toContain(sourceId);
  });

  test('GET /api/delete: a source used by a connection says so; unused, an admin deletes it', async () => {
    const connection = adminDb().collection('organizations').doc(orgId).collection('connections').doc();
    await connection.set({ name: 'Ads to Mixpanel', source_id: sourceId, destination_id: 'd1', created_at: Timestamp.now() });
    const usage = await call(s.sourceUsage, { token: member.token, query: { orgId, id: sourceId } });
    expect(usage.body.usage.connections).toEqual([{ id: connection.id, name: 'Ads to Mixpanel' }]);
    const blocked = await call(s.deleteRoute, { token: admin.token, query: { documentId: orgId, type: 'source', key: sourceId } });
    expect(blocked.status).toBe(409);
    expect(blocked.body.message).toBe('This source is still used by 1 connection. Remove it from them first.');

    await connection.delete();
    const memberTry = await call(s.deleteRoute, { token: member.token, query: { documentId: orgId, type: 'source', key: sourceId } });
    expect(memberTry.status).toBe(403);
    const deleted = await call(s.deleteRoute, { token: admin.token, query: { documentId: orgId, type: 'source', key: sourceId } });
    expect(deleted.status).toBe(200);
    expect((await call(s.source, { token: admin.token, query: { orgId, id: sourceId } })).status).toBe(404);
  });
});
