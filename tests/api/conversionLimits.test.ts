import retryRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/retry';
import testRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/test';
import conversionRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/index';
import previewRoute from '@/pages/api/orgs/[orgId]/conversions/preview';
import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { sha256Hex } from '@/lib/server/sha256';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { rotateSubmissionKey } from '@/lib/server/repos/apps';

import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { connectWarehouse } from '@/tests/api/helpers/connections';
import { bigqueryTableSource, setUpConversion, type ConversionSetup } from '@/tests/api/helpers/conversions';
import { tapConversions } from '@/tests/api/helpers/queue';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { until, windowWithTimeLeft } from '@/tests/api/helpers/until';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { parkedCounts } from '@/lib/server/repos/parkedEvents';
import { recordDelivery } from '@/lib/server/repos/deliveryLog';

// Conversions under pressure: Retries at once, Send test event in a burst, the billed warehouse preview on a
// plan without conversions, a phone number in a refusal, and a conversion deleted while events still come.
jest.setTimeout(180_000);

let s: Record<'retry' | 'test' | 'item' | 'preview' | 'submissions', TestServer>;
let platforms: FakePlatforms;
let tap: Awaited<ReturnType<typeof tapConversions>>;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers(
    { retry: retryRoute, test: testRoute, item: conversionRoute, preview: previewRoute, submissions },
    { submissions: submissionsConfig },
  );
  tap = await tapConversions();
});
afterAll(async () => {
  await closeAll(s);
  await tap.close();
  await platforms.close();
});

const worker = workerProcesses({ DELIVERY_LINGER_MS: '200' });

const at = (setup: ConversionSetup) => ({ token: setup.owner.token, query: { orgId: setup.orgId, id: setup.conversionId } });

function events(count: number, prefix: string): ConversionEvent[] {
  const now = Math.floor(Date.now() / 1000) - 60;
  return Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index}`,
    name: 'Lead',
    time: now,
    value: null,
    currency: null,
    user: { email: sha256Hex(`person${index}@example.com`) },
    clickIds: {},
    context: { actionSource: 'system_generated' },
  }));
}

test('8 Retries at once replay 15 parked events once: 15 published, the counter back to 0', async () => {
  const setup = await setUpConversion('meta_ads');
  const parked = events(15, 'parked');
  await recordDelivery(setup.orgId, setup.conversionId, {
    test: false,
    latencyMs: 10,
    rows: parked.map((event) => ({ id: event.id, status: 'failed', reason: 'Meta did not answer' })),
    parked: [{ reason: 'failed', why: 'Meta did not answer', events: parked }],
  });
  expect((await parkedCounts(setup.orgId, setup.conversionId)).failed).toBe(15);
  const answers = await Promise.all(Array.from({ length: 8 }, () => call(s.retry, { ...at(setup), method: 'POST' })));
  expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
  expect(answers.reduce((total, answer) => total + Number(answer.body.replayed), 0)).toBe(15);
  const published = (await tap.read()).filter((message) => message.attributes.conversion === setup.conversionId);
  expect(published.map((message) => message.event.id).sort()).toEqual(parked.map((event) => event.id).sort());
  expect((await parkedCounts(setup.orgId, setup.conversionId)).failed).toBe(0);
});

test('Send test event in a burst: 5 a minute reach the platform, the others → 429 with Retry-After', async () => {
  const setup = await setUpConversion('meta_ads');
  const testsAtMeta = () => platforms.conversions.list('meta').filter((entry) => entry.target === 'test:555000111').length;
  const before = testsAtMeta();
  // Limits count in minutes of the clock: a burst across two minutes would meet two windows.
  await windowWithTimeLeft(60, 15);
  const answers = await Promise.all(Array.from({ length: 8 }, () => call(s.test, { ...at(setup), method: 'POST' })));
  const passed = answers.filter((answer) => answer.status === 200);
  const refused = answers.filter((answer) => answer.status === 429);
  expect(passed.length).toBeLessThanOrEqual(5);
  expect(passed.length + refused.length).toBe(8);
  for (const answer of refused) {
    expect(answer.body).toMatchObject({ code: 'rate_limited' });
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  expect(testsAtMeta() - before).toBeLessThanOrEqual(5);
});

describe('the warehouse preview', () => {
  let setup: ConversionSetup;
  let bigqueryId: string;
  /** Previews a read of the phones_as_values table with the phone column mapped as the value by mistake. */
  const previewPhonesAsValues = () =>
    call(s.preview, {
      method: 'POST',
      token: setup.owner.token,
      query: { orgId: setup.orgId },
      body: {
        source: bigqueryTableSource(bigqueryId, {
          table: 'acme-warehouse.crm.phones_as_values',
          columns: { eventId: 'lead_id', eventTime: 'updated_at', value: 'phone', email: 'email' },
        }),
      },
    });

  beforeAll(async () => {
    setup = await setUpConversion('meta_ads');
    bigqueryId = await connectWarehouse(setup.orgId, setup.owner.uid, 'bigquery', platforms.serviceAccountKey);
    platforms.bigquery.createTable('acme-warehouse', 'crm', 'phones_as_values', [
      { name: 'lead_id', type: 'STRING' },
      { name: 'email', type: 'STRING' },
      { name: 'phone', type: 'STRING' },
      { name: 'updated_at', type: 'TIMESTAMP' },
    ]);
    platforms.bigquery.insertRows('acme-warehouse', 'crm', 'phones_as_values', [
      { lead_id: 'P-1', email: 'jane@example.com', phone: '+44 20 7946 0958', updated_at: new Date(Date.now() - 3600_000).toISOString() },
    ]);
  });

  test('a phone number mapped as the value is masked in the row’s reason', async () => {
    const preview = await previewPhonesAsValues();
    expect(preview.status).toBe(200);
    const [row] = preview.body.rows as Array<{ id: string; problem: string | null }>;
    expect(row).toMatchObject({ id: 'P-1', problem: 'The value is no amount: phone holds "+•• •• •••• ••••" (masked).' });
    expect(JSON.stringify(preview.body)).not.toMatch(/7946|0958/);
  });

  test('on a plan without conversions → 403 plan_limit, and no query runs at BigQuery', async () => {
    const jobs = platforms.bigquery.jobs().length;
    await adminDb().collection('organizations').doc(setup.orgId).update({ 'subscription.plan': 'starter' });
    try {
      const preview = await previewPhonesAsValues();
      expect(preview.status).toBe(403);
      expect(preview.body).toMatchObject({ code: 'plan_limit', message: expect.stringMatching(/Growth and Scale/) });
    } finally {
      await adminDb().collection('organizations').doc(setup.orgId).update({ 'subscription.plan': 'growth' });
    }
    expect(platforms.bigquery.jobs()).toHaveLength(jobs);
  });
});

test('a conversion deleted: events posted a moment later are not sent', async () => {
  const setup = await setUpConversion('meta_ads');
  const { key } = await rotateSubmissionKey(setup.orgId, setup.appId);
  worker();
  const submit = (eventId: string) =>
    call(s.submissions, { method: 'POST', token: key, body: { event: 'Lead', eventId, email: 'deleted@example.com' } });
  const atMeta = (eventId: string) => platforms.conversions.list('meta').some((entry) => String(entry.key).endsWith(`|Lead|${eventId}`));
  // The worker knows the conversion (and keeps it in hand for a few seconds).
  expect((await submit('before-delete')).status).toBe(202);
  await until(() => atMeta('before-delete'), 60_000, 'the first event at Meta', 200);
  expect((await call(s.item, { ...at(setup), method: 'DELETE' })).status).toBe(200);
  expect((await submit('after-delete')).status).toBe(202);
  // Long enough for the worker to have sent it (the linger is 200 ms), well within its cache of 5 s.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(atMeta('after-delete')).toBe(false);
  await tap.read();
});
