import app from '@/pages/api/orgs/[orgId]/apps/[id]/index';
import payment from '@/pages/api/orgs/[orgId]/payments/[id]';
import payments from '@/pages/api/orgs/[orgId]/payments/index';
import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import { sha256Hex } from '@/lib/server/sha256';
import { createApp, getApp, rotateSubmissionKey } from '@/lib/server/repos/apps';
import { getPayment } from '@/lib/server/repos/payments';
import { startFakeStripe, stripeEnv, type FakeStripe } from '@/sandbox/stripe';
import { RESTRICTED_KEYS } from '@/sandbox/stripe/charges';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { tapConversions } from '@/tests/api/helpers/queue';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import type { App, Payment } from '@/lib/shared/integrations/apps';

// Source settings (issue 28): an app's default country, default consent and form field names; a
// payment account's default country. Validated, tenant-checked, and used by ingest.
let s: Record<'app' | 'payment' | 'payments' | 'submissions', TestServer>;
let stripe: FakeStripe;
let tap: Awaited<ReturnType<typeof tapConversions>>;
let owner: TestUser;
let member: TestUser;
let outsider: TestUser;
let orgId: string;
let appId: string;

const KEY = Object.keys(RESTRICTED_KEYS).find((key) => RESTRICTED_KEYS[key]!.includes('charges_read'))!;

beforeAll(async () => {
  stripe = await startFakeStripe({ webhookUrl: 'http://127.0.0.1:9/' });
  Object.assign(process.env, stripeEnv(stripe), {
    CREDENTIALS_ENCRYPTION_KEY: process.env.CREDENTIALS_ENCRYPTION_KEY || Buffer.alloc(32, 9).toString('base64'),
  });
  s = await serveHandlers({ app, payment, payments, submissions }, { submissions: submissionsConfig });
  tap = await tapConversions();
  [owner, member, outsider] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
  orgId = await createTestOrganization([
    [owner, 'owner'],
    [member, 'member'],
  ]);
  await createTestOrganization([[outsider, 'owner']]);
  ({ id: appId } = await createApp(orgId, owner.uid, {
    name: 'Shop',
    websiteUrl: 'https://shop.example',
    gtmContainerId: 'GTM-SHOP1',
    payloadUrls: [],
  }));
});
afterAll(async () => {
  await closeAll(s);
  await tap.close();
  await stripe.close();
});

const patchApp = (token: string, body: unknown) => call(s.app, { method: 'PATCH', token, query: { orgId, id: appId }, body });

test("an app's default country, consent and form field names: saved as given, read back, removable", async () => {
  const saved = await patchApp(member.token, {
    defaultCountry: 'us',
    defaultConsent: { adUserData: 'granted' },
    customFields: { email: 'your-email', phone: 'tel_1' },
  });
  expect(saved.status).toBe(200);
  expect(saved.body.app).toMatchObject({
    defaultCountry: 'US',
    defaultConsent: { adUserData: 'granted' },
    customFields: { email: 'your-email', phone: 'tel_1' },
  });
  expect(await getApp(orgId, appId)).toMatchObject({ defaultCountry: 'US' });
  const removed = await patchApp(owner.token, { defaultCountry: null });
  expect(removed.status).toBe(200);
  expect((removed.body.app as App).defaultCountry).toBeUndefined();
  expect((removed.body.app as App).defaultConsent).toEqual({ adUserData: 'granted' });
});

test('bad settings → 400 naming the field, and nothing changes; another organization cannot touch them', async () => {
  await patchApp(owner.token, { defaultCountry: 'DE' });
  for (const [body, field] of [
    [{ defaultCountry: 'Germany' }, 'defaultCountry'],
    [{ defaultConsent: { adUserData: 'yes' } }, 'defaultConsent.adUserData'],
    [{ defaultConsent: { marketing: 'granted' } }, 'defaultConsent'],
    [{ customFields: { email: 'a"><script>' } }, 'customFields.email'],
    [{ customFields: { password: 'pw' } }, 'customFields'],
  ] as const) {
    const refused = await patchApp(owner.token, body);
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.fieldErrors as object)).toContain(field);
  }
  expect((await patchApp(outsider.token, { defaultCountry: 'FR' })).status).toBe(404);
  expect((await getApp(orgId, appId)).defaultCountry).toBe('DE');
});

test("ingest reads a phone without + in the app's default country, and applies its default consent", async () => {
  await patchApp(owner.token, { defaultCountry: 'US', defaultConsent: { adUserData: 'granted', adPersonalization: 'denied' } });
  const { key } = await rotateSubmissionKey(orgId, appId);
  const answer = await call(s.submissions, {
    method: 'POST',
    token: key,
    body: { event: 'Lead', eventId: 'settings-1', phone: '(650) 555-1212', consent: { adPersonalization: 'granted' } },
  });
  expect(answer.status).toBe(202);
  const [message] = (await tap.read()).filter((entry) => entry.event.id === 'settings-1');
  expect(message!.event).toMatchObject({
    user: { phone: sha256Hex('16505551212'), phoneE164: sha256Hex('+16505551212') },
    consent: { adUserData: 'granted', adPersonalization: 'granted' },
  });
  expect(message!.event).not.toHaveProperty('withheld');

  // The app's defaults are kept a little while per instance; an edit through the API is read at once.
  await patchApp(owner.token, { defaultCountry: 'GB' });
  const again = await call(s.submissions, {
    method: 'POST',
    token: key,
    body: { event: 'Lead', eventId: 'settings-2', phone: '020 7946 0958' },
  });
  expect(again.status).toBe(202);
  const [second] = (await tap.read()).filter((entry) => entry.event.id === 'settings-2');
  expect(second!.event.user).toMatchObject({ phoneE164: sha256Hex('+442079460958') });
});

test("a payment account's default country: set on creation and by PATCH, validated, tenant-checked", async () => {
  const created = await call(s.payments, {
    method: 'POST',
    token: owner.token,
    query: { orgId },
    body: { name: 'Stripe', apiKey: KEY, defaultCountry: 'gb' },
  });
  expect(created.status).toBe(200);
  const made = created.body.payment as Payment;
  expect(made.defaultCountry).toBe('GB');
  const id = made.id;
  const patch = (token: string, body: unknown) => call(s.payment, { method: 'PATCH', token, query: { orgId, id }, body });
  expect(((await patch(member.token, { defaultCountry: 'US' })).body.payment as Payment).defaultCountry).toBe('US');
  const refused = await patch(owner.token, { defaultCountry: 'USA' });
  expect(refused.status).toBe(400);
  expect(refused.body.fieldErrors).toHaveProperty('defaultCountry');
  expect((await patch(outsider.token, { defaultCountry: 'FR' })).status).toBe(404);
  expect((await getPayment(orgId, id)).defaultCountry).toBe('US');
  expect(((await patch(owner.token, { defaultCountry: null })).body.payment as Payment).defaultCountry).toBeUndefined();
});
