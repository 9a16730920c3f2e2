import Stripe from 'stripe';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { stripe as stripeConnector } from '@/lib/server/connectors/stripe';
import { API_VERSIONS } from '@/lib/server/connectors/versions';
import { listChargesSince, type StripeCharge } from '@/lib/server/connectors/stripe/charges';
import { sha256Hex } from '@/lib/server/sha256';
import { nextCursor, unseenCharges, type PaymentsCursor } from '@/lib/server/delivery/payments';
import { pull, type Puller } from '@/lib/server/queue/pull';
import { ensureTopology, parseConversionMessage, pubsub, TOPICS } from '@/lib/server/queue/pubsub';
import { updateConversion } from '@/lib/server/repos/conversions';
import { createConversion } from '@/lib/server/services/conversions';
import { createPayment } from '@/lib/server/services/payments';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { startFakeStripe, stripeEnv, type FakeStripe } from '@/sandbox/stripe';
import { RESTRICTED_KEYS } from '@/sandbox/stripe/charges';
import { startWorker, type RunningWorker } from '@/scripts/lib/worker';
import { connectDestination, SANDBOX_TARGETS } from '@/tests/api/helpers/conversions';
import { createTestOrganization, createTestUser } from '@/tests/fixtures/firebase';
import { until } from '@/tests/api/helpers/until';

// Stripe payments as a conversion source, end to end: a payment made in the fake Stripe's customer
// account is read by the worker process's poller, published, delivered to the sandbox's Google
// (Data Manager) and counted there by transaction id. A tap subscription on the topic counts how
// often each payment was published: "never twice" is checked there, not only after the platform's dedup.
jest.setTimeout(120_000);

const POLL_MS = 500;
const KEY = Object.keys(RESTRICTED_KEYS).find((key) => RESTRICTED_KEYS[key]!.includes('charges_read'))!;

let platforms: FakePlatforms;
let stripe: FakeStripe;
let tap: Puller;
/**
 * One worker process for the file (the restart test replaces it): a stopped worker can leave a
 * pull pending at the emulator, which takes the next message and holds it for an ack deadline, so
 * every restart would slow the following deliveries down.
 */
let running: RunningWorker | undefined;
const extra: RunningWorker[] = [];
/** Event id → how many times it was published on the topic. */
const published = new Map<string, number>();
let orgId: string;
let paymentId: string;
let conversionId: string;

beforeAll(async () => {
  // A Pub/Sub project of this file's own: another test file's worker takes none of these messages.
  process.env.PUBSUB_PROJECT_ID = `payments-source-${Date.now().toString(36)}`;
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  stripe = await startFakeStripe({ webhookUrl: 'http://127.0.0.1:9/' });
  Object.assign(process.env, platformsEnv(platforms), stripeEnv(stripe));

  await ensureTopology();
  await pubsub().topic(TOPICS.conversions).createSubscription('payments-source-tap');
  tap = pull('payments-source-tap', (message) => {
    for (const { id } of parseConversionMessage(message.data, message.attributes)?.events ?? [])
      published.set(id, (published.get(id) ?? 0) + 1);
    message.ack();
  });

  // One shop for the whole file: the fake Stripe has one customer account, which every payment account on its key reads.
  const owner = await createTestUser();
  orgId = await createTestOrganization([[owner, 'owner']]);
  paymentId = (await createPayment(orgId, owner.uid, { name: 'Shop payments', apiKey: KEY })).id;
  const destinationId = await connectDestination(orgId, owner.uid, 'google_ads');
  conversionId = (
    await createConversion(orgId, 'growth', owner.uid, {
      name: 'Purchases',
      source: { type: 'payments', paymentId },
      destination: { destinationId, ...SANDBOX_TARGETS.google_ads },
      mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'phone', 'name', 'clickIds'] },
    })
  ).id;
  running = startPoller();
});
afterAll(async () => {
  await Promise.all(extra.map((started) => started.stop()));
  await running?.stop();
  // Paused: no worker of a later test polls this account.
  await updateConversion(orgId, conversionId, { status: 'paused' });
  await tap.stop();
  await pubsub().close();
  await Promise.all([platforms.close(), stripe.close()]);
});

const startPoller = () =>
  startWorker({ ...process.env, PAYMENTS_POLL_MS: String(POLL_MS), DELIVERY_LINGER_MS: '200' }, { quiet: !process.env.WORKER_LOGS });

const paymentDoc = async () => (await adminDb().doc(`organizations/${orgId}/payments/${paymentId}`).get()).data() ?? {};

/** What the sandbox's Google received for a charge (its transaction id), if anything. */
const atGoogle = (chargeId: string) => platforms.conversions.list('google').find((entry) => entry.key.endsWith(`|${chargeId}`));
/** Delivered to Google, and seen on the topic by the tap. */
const arrived = (chargeId: string) => Boolean(atGoogle(chargeId)) && published.has(chargeId);

/**
 * Published (seen on the tap), then delivered to Google. Delivery may wait for an ack deadline
 * (20 s) after a worker was stopped: the emulator can hand the next message to the stopped
 * worker's last pull, and gives it to the new worker once its lease runs out.
 */
async function delivered(chargeId: string, what: string) {
  await until(() => published.has(chargeId), 30_000, `${what} to be published`);
  await until(() => arrived(chargeId), 60_000, `${what} at Google`);
}

/** A running worker has finished a poll round of this account after now. */
async function nextPoll(timeoutMs = 30_000) {
  const after = Date.now();
  await until(
    async () => {
      const polledAt = (await paymentDoc()).polled_at as { toMillis(): number } | undefined;
      return Boolean(polledAt && polledAt.toMillis() > after);
    },
    timeoutMs,
    'a poll of the payment account',
  );
}

/** A payment made through the fake's `POST /__fake/charges`, as the form on its index page does. */
async function pay(fields: Record<string, unknown>): Promise<StripeCharge> {
  const response = await fetch(`${stripe.url}/__fake/charges`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(fields),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as StripeCharge;
}

test('a payment arrives at Google within the poll interval, the charge id as transaction id and the email hashed; a failed one is not sent', async () => {
  await nextPoll();
  const declined = await pay({ amount: 1500, currency: 'usd', email: 'declined@example.com', status: 'failed' });
  const paid = await pay({ amount: 4999, currency: 'usd', email: ' Buyer@Example.com ', name: 'Ada Lovelace', gclid: 'test-gclid-1' });
  const madeAt = Date.now();
  await until(() => Boolean(atGoogle(paid.id)), 30_000, 'the payment at Google');
  // One poll interval, then the delivery linger and the call itself.
  expect(Date.now() - madeAt).toBeLessThan(POLL_MS + 4_000);
  await until(() => arrived(paid.id), 5_000, 'the payment on the tap');

  const received = atGoogle(paid.id)!.event as Record<string, unknown>;
  expect(received).toMatchObject({
    transactionId: paid.id,
    conversionValue: 49.99,
    currency: 'USD',
    eventSource: 'OTHER',
    eventTimestamp: new Date(paid.created * 1000).toISOString(),
    adIdentifiers: { gclid: 'test-gclid-1' },
    userData: { userIdentifiers: [{ emailAddress: sha256Hex('buyer@example.com') }] },
  });
  expect(JSON.stringify(received)).not.toContain('example.com');

  await nextPoll();
  expect(atGoogle(declined.id)).toBeUndefined();
  expect(published.has(declined.id)).toBe(false);
  expect(published.get(paid.id)).toBe(1);
});

test('two payments made in the same second, the second after the first was read, are both delivered once', async () => {
  const second = Math.floor(Date.now() / 1000);
  const first = stripe.createCharge({ amount: 2000, currency: 'eur', email: 'first@example.com', created: second });
  await delivered(first.id as string, 'the first payment');
  const cursor = (await paymentDoc()).poll_cursor as PaymentsCursor;
  expect(cursor.created).toBe(second);
  expect(cursor.ids).toContain(first.id);

  const later = stripe.createCharge({ amount: 3000, currency: 'eur', email: 'later@example.com', created: second });
  await delivered(later.id as string, 'the later payment of the same second');
  await nextPoll();
  expect([published.get(first.id as string), published.get(later.id as string)]).toEqual([1, 1]);
  expect(atGoogle(later.id as string)!.event).toMatchObject({ conversionValue: 30, currency: 'EUR' });
});

test('a rolled key stops the reading with the reason on the payment account; what was paid meanwhile is sent once a key works again', async () => {
  stripe.rollKey(KEY);
  try {
    const meanwhile = stripe.createCharge({ amount: 990, currency: 'usd', email: 'meanwhile@example.com' });
    await until(async () => (await paymentDoc()).poll_error?.code === 'needs_reauth', 30_000, 'the rolled key to be recorded');
    expect((await paymentDoc()).poll_error.message).toMatch(/rolled/);
    await new Promise((resolve) => setTimeout(resolve, 4 * POLL_MS));
    expect(published.has(meanwhile.id as string)).toBe(false);

    stripe.restoreKey(KEY);
    await delivered(meanwhile.id as string, 'the payment made while the key was rolled');
    await until(async () => (await paymentDoc()).poll_error === undefined, 10_000, 'the error to be cleared');
    expect(published.get(meanwhile.id as string)).toBe(1);
  } finally {
    stripe.restoreKey(KEY);
  }
});

test('two workers polling at once publish each payment once (the lease)', async () => {
  extra.push(startPoller());
  // Time for the second process to start polling too.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  // A slow Stripe: each poll lasts longer than the interval, so without the lease the two would read the same payments.
  stripe.delayCharges(3 * POLL_MS);
  try {
    const made: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      made.push(stripe.createCharge({ amount: 100 + index, currency: 'usd', email: `twin${index}@example.com` }).id as string);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    for (const id of made) await delivered(id, `payment ${id}`);
    await nextPoll();
    await nextPoll();
    expect(made.map((id) => published.get(id))).toEqual(made.map(() => 1));
  } finally {
    stripe.delayCharges(0);
    await Promise.all(extra.splice(0).map((started) => started.stop()));
  }
});

test('a restarted worker resumes from the stored cursor: nothing is published again, a new payment is', async () => {
  const before = stripe.createCharge({ amount: 500000, currency: 'jpy', email: 'before@example.com' });
  await delivered(before.id as string, 'the payment before the restart');
  expect(atGoogle(before.id as string)!.event).toMatchObject({ conversionValue: 500000, currency: 'JPY' });
  await running!.stop();
  const counts = new Map(published);
  // Every payment published so far (this test's and the earlier ones'), once.
  expect([...counts.values()].every((count) => count === 1)).toBe(true);

  running = startPoller();
  const after = stripe.createCharge({ amount: 1250, currency: 'usd', email: 'after@example.com' });
  await until(() => published.has(after.id as string), 30_000, 'the payment after the restart to be published');
  await nextPoll();
  await nextPoll();
  expect(published.get(after.id as string)).toBe(1);
  // Nothing published before the restart was published again.
  expect(new Map([...published].filter(([id]) => id !== after.id))).toEqual(counts);
});

test("every charge read of the poller asks for the pinned Stripe-Version, not the account's default", () => {
  // The version the stripe package pins (our billing client's), so both speak one version.
  expect(API_VERSIONS.stripe.version).toBe(Stripe.API_VERSION);
  expect(stripe.chargeReads.length).toBeGreaterThan(0);
  expect(new Set(stripe.chargeReads.map((read) => read.stripeVersion))).toEqual(new Set([API_VERSIONS.stripe.version]));
});

describe('the fake Stripe and the connector', () => {
  let account: FakeStripe;
  const saved = process.env.STRIPE_PAYMENTS_API_URL;
  const session = { accessToken: KEY, rotated: null };
  // An account of its own with payments in the past, spread over seconds, some sharing one.
  const BASE = 1_700_000_000;
  const made: StripeCharge[] = [];

  beforeAll(async () => {
    account = await startFakeStripe({ webhookUrl: 'http://127.0.0.1:9/' });
    process.env.STRIPE_PAYMENTS_API_URL = account.url;
    for (let index = 0; index < 37; index += 1) {
      made.push(
        account.createCharge({
          amount: 100 + index,
          currency: 'usd',
          email: `p${index}@example.com`,
          created: BASE + Math.floor(index / 3),
          status: index % 7 === 3 ? 'failed' : 'succeeded',
        }) as unknown as StripeCharge,
      );
    }
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.STRIPE_PAYMENTS_API_URL;
    else process.env.STRIPE_PAYMENTS_API_URL = saved;
    await account.close();
  });

  const list = (query: string, key = KEY) => fetch(`${account.url}/v1/charges?${query}`, { headers: { Authorization: `Bearer ${key}` } });

  test("lists newest first in Stripe's list format, pages with starting_after, filters by created", async () => {
    const page = await (await list(`created[gte]=${BASE + 10}&limit=3`)).json();
    expect(page).toMatchObject({ object: 'list', url: '/v1/charges', has_more: true });
    expect(page.data.map((charge: StripeCharge) => charge.id)).toEqual([made[36]!.id, made[35]!.id, made[34]!.id]);
    const next = await (await list(`created[gte]=${BASE + 10}&limit=3&starting_after=${made[34]!.id}`)).json();
    expect(next.data.map((charge: StripeCharge) => charge.id)).toEqual([made[33]!.id, made[32]!.id, made[31]!.id]);
    expect(next.has_more).toBe(true);
    const last = await (await list(`created[gt]=${BASE + 10}&created[lte]=${BASE + 11}&limit=100`)).json();
    expect(last.data.map((charge: StripeCharge) => charge.id)).toEqual([made[35]!.id, made[34]!.id, made[33]!.id]);
    expect(last.has_more).toBe(false);
    expect((await (await list('')).json()).data).toHaveLength(10);
    expect(page.data[0]).toMatchObject({
      object: 'charge',
      currency: 'usd',
      status: 'succeeded',
      paid: true,
      captured: true,
      livemode: false,
      billing_details: { email: 'p36@example.com' },
    });
  });

  test('refuses what Stripe refuses', async () => {
    const refused = async (query: string) => {
      const response = await list(query);
      return { status: response.status, error: (await response.json()).error };
    };
    expect(await refused('limit=0')).toMatchObject({ status: 400, error: { type: 'invalid_request_error', param: 'limit' } });
    expect(await refused('limit=101')).toMatchObject({ status: 400, error: { type: 'invalid_request_error', param: 'limit' } });
    expect(await refused('limit=ten')).toMatchObject({ status: 400, error: { param: 'limit' } });
    expect(await refused('created[gte]=yesterday')).toMatchObject({ status: 400, error: { param: 'created[gte]' } });
    expect(await refused('starting_after=ch_unknown')).toMatchObject({
      status: 400,
      error: { code: 'resource_missing', param: 'starting_after' },
    });
    expect(await refused('status=succeeded')).toMatchObject({ status: 400, error: { message: 'Received unknown parameter: status' } });
    expect((await refused('limit=1')).status).toBe(200);
    const noCharges = Object.keys(RESTRICTED_KEYS).find((key) => !RESTRICTED_KEYS[key]!.includes('charges_read'))!;
    expect((await list('limit=1', noCharges)).status).toBe(403);
  });

  test('a listing over the bound is narrowed to a complete older stretch; cursor after cursor, every charge comes once, oldest first', async () => {
    const seen: string[] = [];
    let cursor: PaymentsCursor | null = null;
    for (let round = 0; round < 20; round += 1) {
      const since: number = cursor?.created ?? BASE;
      const listing = await listChargesSince(session, since, { max: 5 });
      // At most the bound (+1 read to know it is over), or two seconds whole.
      expect(listing.charges.length).toBeLessThanOrEqual(6);
      const created = listing.charges.map((charge) => charge.created);
      expect(created).toEqual([...created].sort((a, b) => a - b));
      seen.push(...unseenCharges(listing.charges, cursor).map((charge) => charge.id));
      cursor = nextCursor(cursor, since, listing);
      if (listing.through === null) break;
    }
    expect(seen).toHaveLength(made.length);
    expect(new Set(seen)).toEqual(new Set(made.map((charge) => charge.id)));
  });

  test('the key check and the listing send the pinned Stripe-Version', async () => {
    account.chargeReads.length = 0;
    await stripeConnector.auth.key!.connect({ apiKey: KEY });
    await listChargesSince(session, BASE, { max: 5 });
    expect(account.chargeReads.length).toBeGreaterThan(1);
    expect(account.chargeReads.every((read) => read.path === '/v1/charges' && read.stripeVersion === '2026-10-28.endive')).toBe(true);
  });

  test('classifies refusals: a rolled key needs a new one, a key without charges is forbidden', async () => {
    account.rollKey(KEY);
    await expect(listChargesSince(session, BASE)).rejects.toMatchObject({ code: 'needs_reauth' });
    account.restoreKey(KEY);
    const noCharges = Object.keys(RESTRICTED_KEYS).find((key) => !RESTRICTED_KEYS[key]!.includes('charges_read'))!;
    await expect(listChargesSince({ accessToken: noCharges, rotated: null }, BASE)).rejects.toMatchObject({ code: 'forbidden' });
  });
});
