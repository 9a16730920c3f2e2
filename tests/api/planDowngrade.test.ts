import checkout from '@/pages/api/billing/checkout';
import portal from '@/pages/api/billing/portal';
import webhook, { config as webhookConfig } from '@/pages/api/billing/webhook';
import connectionRoute from '@/pages/api/orgs/[orgId]/connections/[id]/index';
import runRoute from '@/pages/api/orgs/[orgId]/connections/[id]/run';
import * as alerts from '@/lib/server/alerts';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { createConnection } from '@/lib/server/services/connections';
import { createConversion } from '@/lib/server/services/conversions';
import { setAppTarget } from '@/lib/server/services/apps';
import { tick } from '@/lib/server/sync/scheduler';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { startFakeStripe, stripeEnv, type FakeStripe } from '@/sandbox/stripe';
import { connectSource, connectWarehouse, SANDBOX_AD_ACCOUNTS } from '@/tests/api/helpers/connections';
import { connectDestination, createShopApp, SANDBOX_TARGETS } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';

// Downgrading pauses what the plan no longer includes — *paused by plan*, with the way out — and the
// scheduler and the worker skip it; an edit or an upgrade resumes it. Through Stripe's own flow (the fake).
jest.setTimeout(90_000);

// The alerts module is helper code of its own: watched, and still called through.
jest.mock('@/lib/server/alerts', () => {
  const actual = jest.requireActual('@/lib/server/alerts');
  return { ...actual, raiseAlert: jest.fn(actual.raiseAlert), resolveAlert: jest.fn(actual.resolveAlert) };
});

let servers: Record<'checkout' | 'portal' | 'webhook' | 'connection' | 'run', TestServer>;
let stripe: FakeStripe;
let platforms: FakePlatforms;
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  servers = await serveHandlers({ checkout, portal, webhook, connection: connectionRoute, run: runRoute }, { webhook: webhookConfig });
  stripe = await startFakeStripe({ webhookUrl: `${servers.webhook.url}/` });
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, stripeEnv(stripe), platformsEnv(platforms), { APP_URL: 'http://app.test' });
  owner = await createTestUser();
  orgId = await createTestOrganization([[owner, 'owner']], { subscription: null });
});
afterAll(async () => {
  await closeAll(servers);
  await stripe.close();
  await platforms.close();
});

const post = (name: 'checkout' | 'portal', body: unknown) => call(servers[name], { method: 'POST', token: owner.token, body });
const org = () => adminDb().collection('organizations').doc(orgId);
const stateOf = async (collection: string, id: string) => {
  const doc = await org().collection(collection).doc(id).get();
  return { status: doc.get('status') as string, pausedByPlan: (doc.get('paused_by_plan') ?? null) as string | null };
};

async function switchPlan(price: string, organizationId = orgId) {
  const opened = await post('portal', { organizationId });
  expect(opened.status).toBe(200);
  const done = await fetch(`${opened.body.url as string}/plan`, {
    method: 'POST',
    body: new URLSearchParams({ price }),
    redirect: 'manual',
  });
  expect(done.status).toBe(303);
}

test('a downgrade pauses by plan what Starter lacks, the scheduler skips it, and an edit or an upgrade resumes it', async () => {
  const raised = jest.mocked(alerts.raiseAlert);
  const resolved = jest.mocked(alerts.resolveAlert);
  // Scale: a 15-minute connection (Google, 2 accounts), a daily one (Meta, 2 more), a conversion.
  const response = await post('checkout', { organizationId: orgId, plan: 'scale' });
  expect((await fetch(`${response.body.url as string}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
  expect((await org().get()).get('subscription.plan')).toBe('scale');
  const warehouse = await connectWarehouse(orgId, owner.uid, 'bigquery', platforms.serviceAccountKey);
  const connectionOf = async (platform: 'google_ads' | 'meta_ads', every: '15_minutes' | 'daily', name: string) => {
    const sourceId = await connectSource(orgId, owner.uid, platform);
    const created = await createConnection(orgId, 'scale', owner.uid, {
      name,
      sourceId,
      accountIds: SANDBOX_AD_ACCOUNTS[platform],
      destinationId: warehouse,
      dataset: 'signalbridge',
      table: `ads_${platform}`,
      level: 'campaign',
      schedule: { every, at: '06:00', timeZone: 'UTC' },
    });
    return created.id;
  };
  const fast = await connectionOf('google_ads', '15_minutes', 'Every quarter hour');
  const meta = await connectionOf('meta_ads', 'daily', 'Meta daily');
  const app = await createShopApp(orgId, owner.uid);
  const destinationId = await connectDestination(orgId, owner.uid, 'meta_ads');
  const conversion = await createConversion(orgId, 'scale', owner.uid, {
    name: 'Leads',
    source: { type: 'app', appId: app.id },
    destination: { destinationId, ...SANDBOX_TARGETS.meta_ads },
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email'] },
  });
  expect(raised).not.toHaveBeenCalled();

  // Down to Starter: daily syncs, 2 ad accounts, no conversions.
  await switchPlan('price_starter_monthly');
  expect((await org().get()).get('subscription.plan')).toBe('starter');
  const paused = await stateOf('connections', fast);
  expect(paused.status).toBe('paused');
  expect(paused.pausedByPlan).toMatch(
    /Paused by plan: the Starter plan does not sync every 15 minutes\. Upgrade to Scale, or edit its schedule\./,
  );
  // The Meta connection's 2 accounts fit Starter's 2 while the other is paused: it keeps running.
  expect(await stateOf('connections', meta)).toEqual({ status: 'active', pausedByPlan: null });
  const pausedConversion = await stateOf('conversions', conversion.id);
  expect(pausedConversion.status).toBe('paused');
  expect(pausedConversion.pausedByPlan).toMatch(/Upgrade/);
  expect(raised).toHaveBeenCalledWith(
    expect.objectContaining({ orgId, kind: 'paused_by_plan', subject: expect.objectContaining({ type: 'connection', id: fast }) }),
  );
  expect(raised).toHaveBeenCalledWith(
    expect.objectContaining({ kind: 'paused_by_plan', subject: expect.objectContaining({ type: 'conversion', id: conversion.id }) }),
  );

  // The scheduler skips it: due, yet no run is made.
  await org()
    .collection('connections')
    .doc(fast)
    .update({ next_run_at: new Date(Date.now() - 60_000) });
  await tick(new Date());
  expect((await org().collection('connections').doc(fast).collection('runs').get()).size).toBe(0);
  // Nor does Run now: it answers why, with the way out.
  const ranNow = await call(servers.run, { method: 'POST', token: owner.token, query: { orgId, id: fast } });
  expect(ranNow.status).toBe(403);
  expect(ranNow.body).toMatchObject({ code: 'plan_limit', message: expect.stringMatching(/Paused by plan: .* Upgrade to Scale/) });
  expect((await org().collection('connections').doc(fast).collection('runs').get()).size).toBe(0);

  // Resuming it by hand on Starter does not outrun the plan: it is paused by plan again.
  const resumed = await call(servers.connection, {
    method: 'PATCH',
    token: owner.token,
    query: { orgId, id: fast },
    body: { status: 'active' },
  });
  expect(resumed.status).toBe(200);
  expect((resumed.body.connection as { pausedByPlan: string | null }).pausedByPlan).toMatch(/Paused by plan/);

  // An edit brings it within the plan: it runs again — and now the newer Meta connection is past 2 accounts.
  const edited = await call(servers.connection, {
    method: 'PATCH',
    token: owner.token,
    query: { orgId, id: fast },
    body: { schedule: { every: 'daily', at: '06:00', timeZone: 'UTC' } },
  });
  expect(edited.status).toBe(200);
  expect(edited.body.connection).toMatchObject({ status: 'active', pausedByPlan: null });
  expect(resolved).toHaveBeenCalledWith(
    expect.objectContaining({ kind: 'paused_by_plan', subject: expect.objectContaining({ id: fast }) }),
  );
  const over = await stateOf('connections', meta);
  expect(over.status).toBe('paused');
  expect(over.pausedByPlan).toMatch(/The Starter plan includes 2 ad accounts; you selected 4\. Upgrade to Growth/);

  // Back up to Scale: everything runs again.
  await switchPlan('price_scale_monthly');
  expect(await stateOf('connections', meta)).toEqual({ status: 'active', pausedByPlan: null });
  expect(await stateOf('conversions', conversion.id)).toEqual({ status: 'active', pausedByPlan: null });
});

test('an app routed to a pixel on Starter is paused by plan, and runs once the plan includes conversions', async () => {
  const starterOrg = await createTestOrganization([[owner, 'owner']], { subscription: null });
  const response = await post('checkout', { organizationId: starterOrg, plan: 'starter' });
  expect((await fetch(`${response.body.url as string}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
  const app = await createShopApp(starterOrg, owner.uid, { gtmContainerId: 'GTM-SHOP2' });
  const destinationId = await connectDestination(starterOrg, owner.uid, 'meta_ads');
  await setAppTarget(
    starterOrg,
    app.id,
    { platform: 'meta_ads', destinationId, ...SANDBOX_TARGETS.meta_ads },
    { plan: 'starter', uid: owner.uid },
  );
  const routing = () => adminDb().collection('organizations').doc(starterOrg).collection('conversions').get();
  const [paused] = (await routing()).docs;
  expect(paused!.get('status')).toBe('paused');
  expect(paused!.get('paused_by_plan')).toMatch(/Paused by plan: conversions are included in the Growth and Scale plans/);

  await switchPlan('price_growth_monthly', starterOrg);
  const [running] = (await routing()).docs;
  expect({ status: running!.get('status'), pausedByPlan: running!.get('paused_by_plan') }).toEqual({
    status: 'active',
    pausedByPlan: null,
  });
});
