import { BigQuery } from '@google-cloud/bigquery';
import { OAuth2Client } from 'google-auth-library';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { bigQuery } from '@/lib/server/connectors/bigquery';
import { CONVERSION_COLUMNS, conversionTableTargetId } from '@/lib/server/connectors/bigquery/delivery';
import type { Delivery } from '@/lib/server/connectors/types';
import { sha256Hex } from '@/lib/server/sha256';
import { publishConversions } from '@/lib/server/queue/pubsub';
import { getConversion, routingConversionId } from '@/lib/server/repos/conversions';
import { loadIntegration, replaceCredential } from '@/lib/server/repos/integrations';
import { sealCredential } from '@/lib/server/credentials';
import { setAppWarehouse } from '@/lib/server/services/apps';
import { releaseHeld } from '@/lib/server/services/conversions';
import { createIntegration, updateIntegration } from '@/lib/server/services/integrations';
import { consentTo, platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { connectWarehouse } from '@/tests/api/helpers/connections';
import { ownerWithShopApp } from '@/tests/api/helpers/conversions';
import { startWorker, type RunningWorker } from '@/scripts/lib/worker';
import { until } from '@/tests/api/helpers/until';
import { deliveryHours } from '@/lib/server/repos/hourTallies';
import { listDeliveries } from '@/lib/server/repos/deliveryLog';
import { parkedCounts } from '@/lib/server/repos/parkedEvents';

// An app routed to BigQuery: the delivery worker (a process, against the Pub/Sub emulator and
// Firestore) appends its events to `signalbridge.conversions` in the sandbox's BigQuery, once each,
// and logs every call with its rows' outcomes.
jest.setTimeout(240_000);

const PROJECT = 'acme-warehouse';
const DATASET = 'signalbridge';
const TABLE = 'conversions';
const REDIRECT_URI = 'http://localhost:3999/bigquery';

let platforms: FakePlatforms;
let workers: RunningWorker[] = [];
let logged: jest.SpyInstance;

beforeAll(async () => {
  // Refusals are logged for operators; here they are expected.
  logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
});
afterEach(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  workers = [];
});
afterAll(async () => {
  logged.mockRestore();
  await platforms.close();
});

const worker = () => {
  const started = startWorker(
    { ...process.env, DELIVERY_LINGER_MS: '500', DELIVERY_RETRY_BASE_MS: '100', DELIVERY_RETRY_ATTEMPTS: '3' },
    { quiet: !process.env.WORKER_LOGS },
  );
  workers.push(started);
  return started;
};

function events(count: number, prefix: string): ConversionEvent[] {
  const now = Math.floor(Date.now() / 1000) - 60;
  return Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index}`,
    name: index % 2 ? 'Purchase' : 'Lead',
    time: now - index,
    value: index % 2 ? 19.99 : null,
    currency: index % 2 ? 'USD' : null,
    user: {
      email: sha256Hex(`person${index}@example.com`),
      phone: sha256Hex(`1555000${index}`),
      firstName: sha256Hex('ada'),
      externalId: sha256Hex(`customer-${index}`),
    },
    clickIds: { gclid: `gclid-${index}`, fbp: `fb.1.1700000000000.${index}` },
    context: { actionSource: 'website', userAgent: 'Mozilla/5.0', ip: '203.0.113.5', pageUrl: 'https://shop.example/thanks' },
    maskedEmail: 'p***@example.com',
  }));
}

/** The table's rows of one app (tests share the sandbox's table; each app is its own source). */
const rowsOf = (appId: string) => {
  if (!platforms.bigquery.table(PROJECT, DATASET, TABLE)) return [];
  return platforms.bigquery.rows(PROJECT, DATASET, TABLE).filter((row) => row.source === `app:${appId}`);
};

const delivered = async (orgId: string, conversionId: string) =>
  (await deliveryHours(orgId, conversionId, new Date(Date.now() - 3600_000))).reduce((total, hour) => total + hour.delivered, 0);

test('an app routed to BigQuery: each event is one row, hashed identifiers only, in a partitioned and clustered table, and logged', async () => {
  const { owner, orgId, app } = await ownerWithShopApp();
  const destinationId = await connectWarehouse(orgId, owner.uid, 'bigquery', platforms.serviceAccountKey);
  await setAppWarehouse(orgId, app.id, 'bigquery', destinationId, { plan: 'growth', uid: owner.uid });

  const conversionId = routingConversionId(app.id, 'bigquery');
  const conversion = await getConversion(orgId, conversionId);
  expect(conversion).toMatchObject({
    status: 'active',
    source: { type: 'app', appId: app.id },
    destination: {
      platform: 'bigquery',
      destinationId,
      accountId: PROJECT,
      targetId: conversionTableTargetId(`app:${app.id}`),
      targetName: `${PROJECT}.${DATASET}.${TABLE}`,
    },
  });

  const prefix = `bq${Date.now()}`;
  const list = events(300, prefix);
  await publishConversions(list, { org: orgId, source: `app:${app.id}` });
  worker();
  await until(() => rowsOf(app.id).length === 300, 120_000, '300 rows in BigQuery');
  await until(async () => (await delivered(orgId, conversionId)) === 300, 30_000, 'the delivery log to count 300');

  // At-least-once: the same events again (a redelivery, a replay) are logged as delivered, and still one row each.
  await publishConversions(list, { org: orgId, source: `app:${app.id}` });
  await until(async () => (await delivered(orgId, conversionId)) === 600, 120_000, 'the second delivery to be logged');
  const rows = rowsOf(app.id);
  expect(rows).toHaveLength(300);
  expect(new Set(rows.map((row) => row.event_id)).size).toBe(300);

  // Columns: hashed identifiers, click ids and context as they came; no raw email or phone anywhere.
  const first = rows.find((row) => row.event_id === `${prefix}-1`)!;
  expect(first).toMatchObject({
    event_name: 'Purchase',
    event_time: new Date(list[1]!.time * 1000).toISOString(),
    value: '19.99',
    currency: 'USD',
    email_sha256: sha256Hex('person1@example.com'),
    phone_sha256: sha256Hex('15550001'),
    first_name_sha256: sha256Hex('ada'),
    last_name_sha256: null,
    external_id_sha256: sha256Hex('customer-1'),
    gclid: 'gclid-1',
    fbp: 'fb.1.1700000000000.1',
    msclkid: null,
    ip: '203.0.113.5',
    user_agent: 'Mozilla/5.0',
    page_url: 'https://shop.example/thanks',
    source: `app:${app.id}`,
  });
  expect(Date.parse(String(first.received_at))).toBeGreaterThan(Date.now() - 300_000);
  expect(rows.find((row) => row.event_id === `${prefix}-0`)).toMatchObject({ value: null, currency: null });
  expect(JSON.stringify(rows)).not.toMatch(/@example\.com|person\d|customer-\d/);

  const table = platforms.bigquery.table(PROJECT, DATASET, TABLE)!;
  expect(table.timePartitioning).toEqual({ type: 'DAY', field: 'event_time' });
  expect(table.clustering).toEqual({ fields: ['event_name', 'source'] });
  expect((table.schema as { fields: Array<{ name: string; type: string }> }).fields.map((field) => [field.name, field.type])).toEqual(
    CONVERSION_COLUMNS,
  );
  // Staging tables are dropped after each batch.
  expect(
    platforms.bigquery.tables().filter((entry) => entry.datasetId === DATASET && entry.tableId.startsWith('_signalbridge_staging')),
  ).toEqual([]);
  // One MERGE per batch, inserting only what the table lacks.
  expect(
    platforms.bigquery.queries().filter((sql) => sql.startsWith(`MERGE \`${PROJECT}.${DATASET}.${TABLE}\``)).length,
  ).toBeGreaterThanOrEqual(2);

  // The delivery log: one record per call, each row delivered, with the masked email and never a raw one.
  const records = await listDeliveries(orgId, conversionId, { limit: 50 });
  expect(records.length).toBeGreaterThanOrEqual(2);
  const logged = records.flatMap((record) => record.rows);
  expect(logged).toHaveLength(600);
  expect(logged.every((row) => row.status === 'delivered' && row.maskedEmail === 'p***@example.com')).toBe(true);
  expect(records.every((record) => record.latencyMs !== null && record.counts.delivered === record.rows.length)).toBe(true);
  expect(JSON.stringify(records)).not.toMatch(/person\d+@example\.com/);

  // Stopping the routing removes its conversion.
  await setAppWarehouse(orgId, app.id, 'bigquery', null, { plan: 'growth', uid: owner.uid });
  await expect(getConversion(orgId, conversionId)).rejects.toMatchObject({ code: 'not_found' });
});

test('a row the table refuses is rejected with BigQuery’s words; the others are appended', async () => {
  const connection = await bigQuery.auth.key!.connect({ serviceAccountKey: platforms.serviceAccountKey });
  const session = await bigQuery.openSession(connection.credential);
  // Someone made `currency` REQUIRED in their table: events without a currency cannot go in.
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: session.accessToken });
  const client = new BigQuery({ projectId: PROJECT, apiEndpoint: `${platforms.url}/bigquery`, authClient: auth, autoRetry: false });
  await client.createDataset('strict');
  await client.dataset('strict').createTable('conversions', {
    schema: CONVERSION_COLUMNS.map(([name, type]) => ({ name, type, mode: name === 'currency' ? 'REQUIRED' : 'NULLABLE' })),
  });

  const list = events(5, `strict${Date.now()}`);
  const outcomes = await (bigQuery.deliver as Delivery).send(
    session,
    { id: PROJECT, name: PROJECT },
    { id: conversionTableTargetId('app:strict', 'strict', 'conversions'), name: 'strict' },
    list,
  );
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'delivered', 'rejected', 'delivered', 'rejected']);
  expect(outcomes[0]).toMatchObject({ reason: expect.stringMatching(/^BigQuery refused this row: .*currency/) });
  expect(platforms.bigquery.rows(PROJECT, 'strict', 'conversions').map((row) => row.event_id)).toEqual([list[1]!.id, list[3]!.id]);
});

test('a revoked BigQuery login → events held, not dropped; after Reconnect they are appended', async () => {
  const { owner, orgId, app } = await ownerWithShopApp();
  const oauth = bigQuery.auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('test-state', REDIRECT_URI));
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI);
  const destination = await createIntegration(orgId, { kind: 'destination', platform: 'bigquery', connection, uid: owner.uid });
  await updateIntegration(orgId, 'destination', destination.id, { accountIds: [PROJECT] });
  await setAppWarehouse(orgId, app.id, 'bigquery', destination.id, { plan: 'growth', uid: owner.uid });
  const conversionId = routingConversionId(app.id, 'bigquery');

  platforms.revokeAll('google');
  await publishConversions(events(40, `held${Date.now()}`), { org: orgId, source: `app:${app.id}` });
  worker();
  await until(async () => (await parkedCounts(orgId, conversionId)).held === 40, 60_000, 'the events to be held');
  expect(rowsOf(app.id)).toHaveLength(0);
  expect((await loadIntegration(orgId, 'destination', destination.id)).integration.status).toBe('needs_reauth');
  const [record] = await listDeliveries(orgId, conversionId, { limit: 1 });
  expect(record!.rows.every((row) => row.status === 'held' && /reconnect/i.test(row.reason ?? ''))).toBe(true);

  // Reconnect: a new consent, as the Reconnect button does, then the held events go out again.
  const again = await consentTo(oauth.authorizeUrl('test-state', REDIRECT_URI));
  const renewed = await oauth.exchangeCode(again.searchParams.get('code')!, REDIRECT_URI);
  const { credentialId } = await loadIntegration(orgId, 'destination', destination.id);
  await replaceCredential(orgId, 'destination', destination.id, {
    credentialId,
    sealedCredential: sealCredential(orgId, credentialId, renewed.credential),
    accountName: renewed.accountName,
    uid: owner.uid,
  });
  await releaseHeld(orgId, destination.id);
  await until(() => rowsOf(app.id).length === 40, 60_000, 'the held events after Reconnect');
  expect((await parkedCounts(orgId, conversionId)).held).toBe(0);
});
