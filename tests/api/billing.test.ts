import checkout from '@/pages/api/billing/checkout';
import customer from '@/pages/api/billing/customer';
import plans from '@/pages/api/billing/plans';
import portal from '@/pages/api/billing/portal';
import sessionValidity from '@/pages/api/billing/session-validity/[a]/[b]';
import webhook, { config as webhookConfig } from '@/pages/api/billing/webhook';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { startFakeStripe, stripeEnv, type FakeStripe } from '@/sandbox/stripe';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

const handlers = { checkout, customer, plans, portal, sessionValidity, webhook };
type Name = keyof typeof handlers;
let servers: Record<Name, TestServer>;
let stripe: FakeStripe;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;
let orgId: string;
let otherOrg: string;

beforeAll(async () => {
  servers = await serveHandlers(handlers, { webhook: webhookConfig });
  stripe = await startFakeStripe({ webhookUrl: `${servers.webhook.url}/` });
  Object.assign(process.env, stripeEnv(stripe), { APP_URL: 'http://app.test' });
  [owner, admin, member, outsider] = await Promise.all([createTestUser(), createTestUser(), createTestUser(), createTestUser()]);
  orgId = await createTestOrganization(
    [
      [owner, 'owner'],
      [admin, 'admin'],
      [member, 'member'],
    ],
    { subscription: null },
  );
  otherOrg = await createTestOrganization([[outsider, 'owner']], { subscription: null });
});
afterAll(async () => {
  await closeAll(servers);
  await stripe.close();
});

const post = (name: Name, user: TestUser, body: unknown) => call(servers[name], { method: 'POST', token: user.token, body });
const organizationData = async (id: string) => (await adminDb().doc(`organizations/${id}`).get()).data() ?? {};
const subscriptionOf = async (id: string) => (await organizationData(id)).subscription;
/** The organization's subscriptions as Stripe (the fake) holds them, oldest first. */
const stripeSubscriptionsOf = (id: string) =>
  [...stripe.subscriptions.values()].filter((subscription) => (subscription.metadata as Record<string, string>).organization_id === id);
const liveSubscriptionsOf = (id: string) => stripeSubscriptionsOf(id).filter((subscription) => subscription.status !== 'canceled');

/** Something done on a hosted portal page (a form post), as the customer would: cancel, or switch plan. */
async function inPortal(user: TestUser, organizationId: string, action: 'cancel' | 'plan', form: Record<string, string> = {}) {
  const opened = await post('portal', user, { organizationId });
  expect(opened.status).toBe(200);
  const done = await fetch(`${opened.body.url as string}/${action}`, {
    method: 'POST',
    body: new URLSearchParams(form),
    redirect: 'manual',
  });
  expect(done.status).toBe(303);
}

/** Completes a checkout the way a customer would: Pay on the hosted page (which sends the webhooks). */
async function payFor(user: TestUser, organizationId: string, plan = 'growth'): Promise<string> {
  const response = await post('checkout', user, { organizationId, plan });
  expect(response.status).toBe(200);
  const checkoutUrl = response.body.url as string;
  const paid = await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
  expect(paid.status).toBe(303);
  return new URL(paid.headers.get('location')!).searchParams.get('session_id')!;
}

function signedEvent(type: string, object: Record<string, unknown>, id = `evt_${Math.random().toString(36).slice(2)}`) {
  const payload = JSON.stringify({ id, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object } });
  return { payload, signature: stripe.sign(payload) };
}

const deliver = (payload: string, signature?: string) =>
  call(servers.webhook, {
    method: 'POST',
    body: payload,
    headers: signature ? { 'Stripe-Signature': signature } : {},
  });

describe('customer and checkout', () => {
  test('the customer is created once per organization and reused; members and outsiders cannot', async () => {
    const body = (user: TestUser) => ({ email: user.email, organizationId: orgId, userId: user.uid });
    const first = await post('customer', owner, body(owner));
    const second = await post('customer', admin, body(admin));
    expect(first.body.customerId).toMatch(/^cus_/);
    expect(second.body.customerId).toBe(first.body.customerId);
    expect(stripe.customers.size).toBe(1);
    expect((await post('customer', member, body(member))).status).toBe(403);
    expect((await post('customer', outsider, { ...body(outsider), organizationId: orgId })).status).toBe(404);
    expect((await post('customer', admin, body(owner))).status).toBe(403);
  });

  test('only owners and admins start a checkout; plans come with Stripe prices', async () => {
    expect((await post('checkout', member, { organizationId: orgId, plan: 'growth' })).status).toBe(403);
    expect((await post('checkout', outsider, { organizationId: orgId, plan: 'growth' })).status).toBe(404);
    expect((await post('checkout', owner, { organizationId: orgId, plan: 'platinum' })).status).toBe(400);
    const listed = await call(servers.plans, { token: member.token });
    expect(listed.body.plans).toEqual([
      expect.objectContaining({ id: 'starter', amount: 4900, currency: 'usd' }),
      expect.objectContaining({ id: 'growth', amount: 14900 }),
      expect.objectContaining({ id: 'scale', amount: 39900 }),
    ]);
  });

  test('paying activates the subscription; the session is valid only for its own organization', async () => {
    const sessionId = await payFor(owner, orgId);
    expect(await subscriptionOf(orgId)).toMatchObject({ status: 'active', plan: 'growth' });
    // What members may read keeps no Stripe id (those stay in a server-only document).
    expect(JSON.stringify(await organizationData(orgId))).not.toMatch(/cus_|sub_|cs_test_/);
    const valid = (user: TestUser, a: string) => call(servers.sessionValidity, { token: user.token, query: { a, b: sessionId } });
    expect((await valid(member, orgId)).body).toEqual({ isValid: true });
    expect((await valid(outsider, otherOrg)).body).toEqual({ isValid: false });
    expect((await valid(outsider, orgId)).status).toBe(404);
  });

  test('the portal is for owners and admins of an organization with a billing account', async () => {
    expect((await post('portal', member, { organizationId: orgId })).status).toBe(403);
    expect((await post('portal', outsider, { organizationId: orgId })).status).toBe(404);
    expect((await post('portal', outsider, { organizationId: otherOrg })).status).toBe(409);
    expect((await post('portal', admin, { organizationId: orgId })).body.url).toMatch(/\/portal\/bps_/);
  });
});

describe('webhook', () => {
  test('a forged or missing signature → 400, and nothing changes', async () => {
    const before = await subscriptionOf(otherOrg);
    const { payload } = signedEvent('customer.subscription.created', {
      id: 'sub_forged',
      object: 'subscription',
      customer: 'cus_x',
      status: 'active',
      metadata: { organization_id: otherOrg },
      items: { data: [] },
    });
    const forged = `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`;
    expect((await deliver(payload, forged)).status).toBe(400);
    expect((await deliver(payload)).status).toBe(400);
    expect(await subscriptionOf(otherOrg)).toEqual(before);
  });

  test('a replayed event has no second effect, and an older event never overwrites a newer one', async () => {
    const team = await createTestOrganization([[owner, 'owner']], { subscription: null });
    await payFor(owner, team);
    const [subscription] = stripeSubscriptionsOf(team);
    const created = signedEvent('customer.subscription.created', subscription!, `evt_replay_1_${team}`);
    expect((await deliver(created.payload, created.signature)).body).toMatchObject({ outcome: 'applied' });
    const canceled = signedEvent('customer.subscription.deleted', { ...subscription, status: 'canceled' }, `evt_replay_2_${team}`);
    expect((await deliver(canceled.payload, canceled.signature)).body).toMatchObject({ outcome: 'applied' });
    expect(await subscriptionOf(team)).toMatchObject({ status: 'canceled' });

    // Stripe retries the first event: it must not bring the subscription back.
    const replay = await deliver(created.payload, stripe.sign(created.payload));
    expect(replay.body).toMatchObject({ outcome: 'duplicate' });
    expect(await subscriptionOf(team)).toMatchObject({ status: 'canceled' });
  });

  test('a failed payment makes the subscription past due, with the date it started', async () => {
    const team = await createTestOrganization([[owner, 'owner']], { subscription: null });
    const sessionId = await payFor(owner, team);
    expect(sessionId).toMatch(/^cs_test_/);
    const { id: subscriptionId, customer: customerId } = stripeSubscriptionsOf(team)[0]!;
    const failed = signedEvent('invoice.payment_failed', {
      id: 'in_1',
      object: 'invoice',
      customer: customerId,
      subscription: subscriptionId,
    });
    expect((await deliver(failed.payload, failed.signature)).status).toBe(200);
    expect(await subscriptionOf(team)).toMatchObject({ status: 'past_due', past_due_since: expect.any(String), plan: 'growth' });
  });

  test('a failed payment of a subscription the organization does not hold changes nothing', async () => {
    const team = await createTestOrganization([[owner, 'owner']], { subscription: null });
    await payFor(owner, team);
    const { customer: customerId } = stripeSubscriptionsOf(team)[0]!;
    const before = await subscriptionOf(team);
    const failed = signedEvent('invoice.payment_failed', {
      id: 'in_2',
      object: 'invoice',
      customer: customerId,
      subscription: 'sub_someOtherOne',
    });
    const response = await deliver(failed.payload, failed.signature);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ outcome: 'ignored' });
    expect(await subscriptionOf(team)).toEqual(before);
  });

  test('a late deletion of an earlier subscription does not lock the organization out of its current one', async () => {
    const team = await createTestOrganization([[owner, 'owner']], { subscription: null });
    await payFor(owner, team, 'growth');
    const [earlier] = stripeSubscriptionsOf(team);
    await inPortal(owner, team, 'cancel');
    expect(await subscriptionOf(team)).toMatchObject({ status: 'canceled' });
    await payFor(owner, team, 'starter');
    expect(await subscriptionOf(team)).toMatchObject({ status: 'active', plan: 'starter' });

    // Stripe (re)sends the earlier subscription's deletion after the new one started.
    const late = signedEvent('customer.subscription.deleted', { ...earlier, status: 'canceled' });
    const response = await deliver(late.payload, late.signature);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ outcome: 'ignored' });
    expect(await subscriptionOf(team)).toMatchObject({ status: 'active', plan: 'starter' });
  });

  test("an event about one organization's customer never touches another organization named in its metadata", async () => {
    const victim = await createTestOrganization([[owner, 'owner']], { subscription: null });
    const attacker = await createTestOrganization([[outsider, 'owner']], { subscription: null });
    const victimSession = await payFor(owner, victim);
    await payFor(outsider, attacker);
    const victimBefore = await organizationData(victim);
    const [attackers] = stripeSubscriptionsOf(attacker);

    const event = signedEvent('customer.subscription.updated', { ...attackers, status: 'unpaid', metadata: { organization_id: victim } });
    expect((await deliver(event.payload, event.signature)).status).toBe(200);

    expect(await organizationData(victim)).toEqual(victimBefore);
    // The victim's own checkout still belongs to the victim's customer.
    const valid = await call(servers.sessionValidity, { token: owner.token, query: { a: victim, b: victimSession } });
    expect(valid.body).toEqual({ isValid: true });
    // The event is about the attacker's subscription, so it applies there (its customer is bound to it).
    expect(await subscriptionOf(attacker)).toMatchObject({ status: 'unpaid' });
  });

  test('events of a customer we never created, or with malformed ids, are acknowledged and change nothing', async () => {
    const before = await subscriptionOf(otherOrg);
    const subscription = { id: 'sub_unbound', object: 'subscription', customer: 'cus_unbound', status: 'active', items: { data: [] } };
    const cases = [
      { ...subscription, metadata: { organization_id: otherOrg } },
      { ...subscription, metadata: { organization_id: '__x__' } },
      { ...subscription, metadata: { organization_id: 'a/b' } },
      { ...subscription, metadata: { organization_id: '..' } },
      { ...subscription, customer: 'a/b', metadata: { organization_id: otherOrg } },
      { ...subscription, customer: '__x__' },
    ];
    for (const object of cases) {
      const event = signedEvent('customer.subscription.created', object);
      const response = await deliver(event.payload, event.signature);
      expect({ object, status: response.status, body: response.body }).toMatchObject({ object, status: 200, body: { outcome: 'ignored' } });
    }
    const checkout = signedEvent('checkout.session.completed', {
      id: 'cs_test_unbound',
      object: 'checkout.session',
      customer: 'cus_unbound',
      subscription: 'sub_unbound',
      client_reference_id: otherOrg,
      metadata: { organization_id: otherOrg },
    });
    expect((await deliver(checkout.payload, checkout.signature)).body).toMatchObject({ outcome: 'ignored' });
    expect(await subscriptionOf(otherOrg)).toEqual(before);
  });

  test('a body over 1 MB is refused before its signature is checked', async () => {
    const huge = JSON.stringify({ id: 'evt_huge', padding: 'x'.repeat(1024 * 1024) });
    const response = await deliver(huge, stripe.sign(huge));
    expect(response.status).toBe(413);
    // The same without a Content-Length (chunked): counted while it is read.
    const chunks = [Buffer.alloc(600 * 1024, 'x'), Buffer.alloc(600 * 1024, 'x')];
    const streamed = await fetch(`${servers.webhook.url}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripe.sign('x') },
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });
});

describe('one subscription per organization', () => {
  const refused = 'This organization already has a subscription. Change plans in billing settings.';

  test('a second checkout is refused while a subscription is live; the plan changes in the portal instead', async () => {
    const team = await createTestOrganization([[owner, 'owner']], { subscription: null });
    await payFor(owner, team, 'starter');
    const sessions = stripe.checkoutSessions.size;

    const again = await post('checkout', owner, { organizationId: team, plan: 'growth' });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(refused);
    expect(stripe.checkoutSessions.size).toBe(sessions);

    await inPortal(owner, team, 'plan', { price: 'price_growth_monthly' });
    expect(await subscriptionOf(team)).toMatchObject({ status: 'active', plan: 'growth' });
    expect(liveSubscriptionsOf(team)).toHaveLength(1);
  });

  test('Stripe is asked too: a subscription the organization document does not show yet still counts', async () => {
    const team = await createTestOrganization([[owner, 'owner']], { subscription: null });
    await payFor(owner, team, 'starter');
    // As if the webhook had not landed yet.
    await adminDb().doc(`organizations/${team}`).update({ subscription: null });
    const again = await post('checkout', owner, { organizationId: team, plan: 'growth' });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(refused);
  });

  test('a newer checkout replaces an unpaid one, so two tabs cannot buy two subscriptions', async () => {
    const team = await createTestOrganization([[owner, 'owner']], { subscription: null });
    const first = (await post('checkout', owner, { organizationId: team, plan: 'starter' })).body.url as string;
    const second = (await post('checkout', owner, { organizationId: team, plan: 'growth' })).body.url as string;
    const paidFirst = await fetch(`${first}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paidFirst.status).not.toBe(303);
    expect(await paidFirst.text()).toContain('no longer available');
    expect((await fetch(`${second}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect(liveSubscriptionsOf(team)).toHaveLength(1);
    expect(await subscriptionOf(team)).toMatchObject({ status: 'active', plan: 'growth' });
  });

  test('after a cancellation a new checkout is allowed', async () => {
    const team = await createTestOrganization([[owner, 'owner']], { subscription: null });
    await payFor(owner, team, 'starter');
    await inPortal(owner, team, 'cancel');
    await payFor(owner, team, 'scale');
    expect(await subscriptionOf(team)).toMatchObject({ status: 'active', plan: 'scale' });
    expect(liveSubscriptionsOf(team)).toHaveLength(1);
  });
});

test('the fake Stripe refuses what Stripe refuses', async () => {
  const post = (key: string, path: string, body: string) =>
    fetch(`${stripe.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
  expect((await post('sk_test_wrong', '/v1/customers', 'email=a%40b.test')).status).toBe(401);
  const missing = await post(stripe.secretKey, '/v1/checkout/sessions', 'mode=subscription');
  expect(missing.status).toBe(400);
  expect(await missing.json()).toEqual({
    error: { type: 'invalid_request_error', message: 'Missing required param: success_url.', param: 'success_url' },
  });
  const unknownPrice = await post(
    stripe.secretKey,
    '/v1/checkout/sessions',
    'mode=subscription&success_url=http%3A%2F%2Fx&line_items[0][price]=price_nope&line_items[0][quantity]=1',
  );
  expect(unknownPrice.status).toBe(400);
});
