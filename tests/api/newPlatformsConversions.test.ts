import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import { IDENTIFIERS, type DeliveryRow } from '@/lib/shared/conversions/conversion';
import { sha256Hex } from '@/lib/server/sha256';
import { rotateSubmissionKey } from '@/lib/server/repos/apps';
import { listDeliveries } from '@/lib/server/repos/deliveryLog';
import { updateConversion } from '@/lib/server/repos/conversions';
import { ensureTopology, pubsub } from '@/lib/server/queue/pubsub';
import { createConversion } from '@/lib/server/services/conversions';
import { createPayment } from '@/lib/server/services/payments';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { startFakeStripe, stripeEnv, type FakeStripe } from '@/sandbox/stripe';
import { RESTRICTED_KEYS } from '@/sandbox/stripe/charges';
import { connectDestination, createShopApp, SANDBOX_TARGETS } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { until, untilValue } from '@/tests/api/helpers/until';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { createTestOrganization, createTestUser } from '@/tests/fixtures/firebase';

// Issue 39's "done when" for the two newest platforms: conversions from the website (POST /api/submissions, as the
// snippet and a server send them) and from Stripe payments reach TikTok and LinkedIn through the worker, each
// platform receives the email in its own hashed form and its own click id, and the delivery log says delivered.
jest.setTimeout(240_000);

const PLATFORMS = ['tiktok_ads', 'linkedin_ads'] as const;
type NewPlatform = (typeof PLATFORMS)[number];
/** The sandbox ledger's name of each. */
const LEDGER = { tiktok_ads: 'tiktok', linkedin_ads: 'linkedin' } as const;
const KEY = Object.keys(RESTRICTED_KEYS).find((key) => RESTRICTED_KEYS[key]!.includes('charges_read'))!;

let platforms: FakePlatforms;
let stripe: FakeStripe;
let s: Record<'submissions', TestServer>;
let orgId: string;
let key: string;
const fromApp = {} as Record<NewPlatform, string>;
const fromPayments = {} as Record<NewPlatform, string>;

const worker = workerProcesses({ DELIVERY_LINGER_MS: '300', PAYMENTS_POLL_MS: '500' });

beforeAll(async () => {
  // A Pub/Sub project of this file's own: no other file's worker takes these messages.
  process.env.PUBSUB_PROJECT_ID = `new-platforms-${Date.now().toString(36)}`;
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  stripe = await startFakeStripe({ webhookUrl: 'http://127.0.0.1:9/' });
  Object.assign(process.env, platformsEnv(platforms), stripeEnv(stripe));
  await ensureTopology();
  s = await serveHandlers({ submissions }, { submissions: submissionsConfig });

  const owner = await createTestUser();
  orgId = await createTestOrganization([[owner, 'owner']]);
  const app = await createShopApp(orgId, owner.uid);
  ({ key } = await rotateSubmissionKey(orgId, app.id));
  const paymentId = (await createPayment(orgId, owner.uid, { name: 'Shop payments', apiKey: KEY })).id;
  const mapping = { events: [], value: { mode: 'event' as const }, identifiers: [...IDENTIFIERS] };
  for (const platform of PLATFORMS) {
    const destinationId = await connectDestination(orgId, owner.uid, platform);
    const destination = { destinationId, ...SANDBOX_TARGETS[platform] };
    fromApp[platform] = (
      await createConversion(orgId, 'growth', owner.uid, {
        name: `Shop → ${platform}`,
        source: { type: 'app', appId: app.id },
        destination,
        mapping,
      })
    ).id;
    fromPayments[platform] = (
      await createConversion(orgId, 'growth', owner.uid, {
        name: `Payments → ${platform}`,
        source: { type: 'payments', paymentId },
        destination,
        mapping,
      })
    ).id;
  }
});
afterAll(async () => {
  // Paused: no later worker polls this payment account.
  for (const platform of PLATFORMS) await updateConversion(orgId, fromPayments[platform], { status: 'paused' });
  await closeAll(s);
  await pubsub().close();
  await Promise.all([platforms.close(), stripe.close()]);
});

/** What a platform's sandbox recorded for an event id, if anything. */
const atPlatform = (platform: NewPlatform, eventId: string) =>
  platforms.conversions.list(LEDGER[platform]).find((entry) => entry.key.includes(eventId))?.event;

/** The log's row of an event at one of the conversions. */
const rowOf = (conversionId: string, eventId: string) =>
  untilValue(
    async () => {
      const records = await listDeliveries(orgId, conversionId, { eventId });
      return records.flatMap((record) => record.rows).find((row) => row.id === eventId) ?? null;
    },
    (row) => row !== null,
    60_000,
    `${eventId} in the log`,
  ) as Promise<DeliveryRow>;

test('a website event reaches TikTok and LinkedIn, each with the email in its hashed form and its own click id, and the log says delivered', async () => {
  worker();
  const answer = await call(s.submissions, {
    method: 'POST',
    token: key,
    body: {
      events: [
        {
          event: 'CompletePayment',
          eventId: 'np-web-1',
          occurredAt: new Date(Date.now() - 60_000).toISOString(),
          email: ' Buyer@Example.com ',
          ttclid: 'E.C.P.tiktok-click-1',
          li_fat_id: 'linkedin-click-1',
          ip: '203.0.113.9',
          userAgent: 'Mozilla/5.0',
          pageUrl: 'https://shop.example/thanks',
          value: 49.99,
          currency: 'USD',
        },
      ],
    },
  });
  expect(answer.status).toBe(202);

  const email = sha256Hex('buyer@example.com');
  for (const platform of PLATFORMS) {
    const row = await rowOf(fromApp[platform], 'np-web-1');
    expect(row.status).toBe('delivered');
    await until(() => Boolean(atPlatform(platform, 'np-web-1')), 30_000, `the event at ${platform}`);
  }
  const tiktok = JSON.stringify(atPlatform('tiktok_ads', 'np-web-1'));
  expect(tiktok).toContain(email);
  expect(tiktok).toContain('E.C.P.tiktok-click-1');
  expect(tiktok).not.toContain('linkedin-click-1');
  const linkedin = JSON.stringify(atPlatform('linkedin_ads', 'np-web-1'));
  expect(linkedin).toContain(email);
  expect(linkedin).toContain('linkedin-click-1');
  expect(linkedin).not.toContain('E.C.P.tiktok-click-1');
  // Nobody's clear email left our side.
  expect(tiktok + linkedin).not.toMatch(/buyer@example\.com/i);
});

test('a Stripe payment reaches TikTok and LinkedIn, the charge id as the event id, and a failed payment is sent to neither', async () => {
  worker();
  const pay = async (fields: Record<string, unknown>) => {
    const response = await fetch(`${stripe.url}/__fake/charges`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(fields),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { id: string };
  };
  const declined = await pay({ amount: 1500, currency: 'usd', email: 'declined@example.com', status: 'failed' });
  const paid = await pay({ amount: 4999, currency: 'usd', email: 'Payer@Example.com' });

  for (const platform of PLATFORMS) {
    await until(() => Boolean(atPlatform(platform, paid.id)), 60_000, `the payment at ${platform}`);
    expect(JSON.stringify(atPlatform(platform, paid.id))).toContain(sha256Hex('payer@example.com'));
    expect((await rowOf(fromPayments[platform], paid.id)).status).toBe('delivered');
    expect(atPlatform(platform, declined.id)).toBeUndefined();
  }
});
