import type { BigQuerySource } from '@/lib/shared/conversions/conversion';
import { getConversion } from '@/lib/server/repos/conversions';
import { requestRead } from '@/lib/server/repos/reads';
import { createConversion } from '@/lib/server/services/conversions';
import { platformsEnv, SANDBOX_MIXPANEL, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { connectWarehouse } from '@/tests/api/helpers/connections';
import { connectDestination, SANDBOX_TARGETS } from '@/tests/api/helpers/conversions';
import { createTestOrganization, createTestUser } from '@/tests/fixtures/firebase';
import { until } from '@/tests/api/helpers/until';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { deliveryHours } from '@/lib/server/repos/hourTallies';
import { listDeliveries } from '@/lib/server/repos/deliveryLog';

// BigQuery rows → conversion events → Meta, through the worker as a process: the warehouse reader
// pages through the sandbox's BigQuery from a cursor and publishes to the Pub/Sub emulator, the
// delivery worker sends. What arrives is counted at the sandbox's Meta by its dedup key.
jest.setTimeout(300_000);

const PROJECT = 'acme-warehouse';
const DATASET = 'crm_test';

let platforms: FakePlatforms;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
});
afterAll(() => platforms.close());

const worker = workerProcesses({
  // A partial batch waits 5 s for the rest of its page: a busy machine's slow pull does not split it.
  DELIVERY_LINGER_MS: '5000',
  WAREHOUSE_POLL_MS: '500',
  PAYMENTS_POLL_MS: '3600000',
  SYNC_TICK_MS: '0',
});

const FIELDS = [
  { name: 'lead_id', type: 'STRING' },
  { name: 'email', type: 'STRING' },
  { name: 'gclid', type: 'STRING' },
  { name: 'value', type: 'NUMERIC' },
  { name: 'currency', type: 'STRING' },
  { name: 'closed_at', type: 'TIMESTAMP' },
  { name: 'updated_at', type: 'TIMESTAMP' },
];

/** Rows `from`…`from + count - 1`, updated in that order a few per millisecond (ties included). */
function rows(prefix: string, from: number, count: number, base = Date.now() - 3600_000) {
  return Array.from({ length: count }, (_, offset) => {
    const index = from + offset;
    const at = new Date(base + Math.floor(index / 3)).toISOString();
    return {
      lead_id: `${prefix}-${index}`,
      email: `lead${index}@example.com`,
      gclid: null,
      value: '250.00',
      currency: 'USD',
      closed_at: at,
      updated_at: at,
    };
  });
}

async function setUp(table: string) {
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']]);
  const warehouseId = await connectWarehouse(orgId, owner.uid, 'bigquery', platforms.serviceAccountKey);
  const destinationId = await connectDestination(orgId, owner.uid, 'meta_ads');
  platforms.bigquery.createTable(PROJECT, DATASET, table, FIELDS);
  const source: BigQuerySource = {
    type: 'bigquery',
    destinationId: warehouseId,
    projectId: PROJECT,
    mode: 'table',
    table: `${PROJECT}.${DATASET}.${table}`,
    sql: '',
    cursorColumn: 'updated_at',
    maximumBytesBilled: 1_000_000_000,
    columns: { eventId: 'lead_id', eventTime: 'closed_at', email: 'email', gclid: 'gclid', value: 'value', currency: 'currency' },
    eventName: 'Lead',
    schedule: { every: 'hourly', at: '06:00', timeZone: 'UTC' },
  };
  return {
    orgId,
    owner,
    source,
    create: () =>
      createConversion(orgId, 'growth', owner.uid, {
        name: 'Qualified leads',
        source,
        destination: { destinationId, ...SANDBOX_TARGETS.meta_ads },
        mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'clickIds'] },
      }),
  };
}

/** The sandbox's Meta entries of these rows: one per dedup key, however often each arrived. */
const arrived = (prefix: string) => platforms.conversions.list('meta').filter((entry) => String(entry.key).includes(`|Lead|${prefix}-`));

const delivered = async (orgId: string, id: string) =>
  (await deliveryHours(orgId, id, new Date(Date.now() - 3600_000))).reduce((total, hour) => total + hour.delivered, 0);

test('50,000 rows → each delivered once, in ⌈50,000 / 1,000⌉ Meta calls; rows appended later are the only ones read next', async () => {
  const prefix = `bulk${Date.now()}`;
  const setup = await setUp(`leads_${prefix}`);
  platforms.bigquery.insertRows(PROJECT, DATASET, `leads_${prefix}`, rows(prefix, 0, 50_000));
  const callsBefore = platforms.conversions.calls('meta');
  const conversion = await setup.create();
  worker();
  await until(() => arrived(prefix).length === 50_000, 240_000, '50,000 rows at Meta');
  expect(arrived(prefix).every((entry) => entry.receipts === 1)).toBe(true);
  expect(platforms.conversions.calls('meta') - callsBefore).toBe(50);
  await until(async () => (await getConversion(setup.orgId, conversion.id)).read?.last?.published === 50_000, 30_000, 'the read summary');
  // What the job billed, as BigQuery reports it: at least its 10 MB minimum.
  expect((await getConversion(setup.orgId, conversion.id)).read?.last?.bytesBilled).toBeGreaterThanOrEqual(10_000_000);
  await until(async () => (await delivered(setup.orgId, conversion.id)) === 50_000, 30_000, 'the delivery log to count 50,000');

  // 300 more rows, updated after the others: the next read publishes those alone.
  platforms.bigquery.insertRows(PROJECT, DATASET, `leads_${prefix}`, rows(prefix, 50_000, 300, Date.now() - 3600_000 + 60_000));
  await requestRead(setup.orgId, conversion.id);
  await until(() => arrived(prefix).length === 50_300, 60_000, 'the appended rows');
  await until(async () => (await getConversion(setup.orgId, conversion.id)).read?.last?.published === 300, 30_000, 'the second read');
  expect(arrived(prefix).every((entry) => entry.receipts === 1)).toBe(true);
  // The second query started at the cursor: it asked for updated_at ≥ the last value read.
  const queries = platforms.bigquery.queries().filter((sql) => sql.includes(`leads_${prefix}`) && sql.includes('@cursor'));
  expect(queries.length).toBeGreaterThanOrEqual(1);
});

test('a worker killed mid-read (SIGKILL): another resumes from the saved cursor → every row once at Meta, none lost', async () => {
  const prefix = `kill${Date.now()}`;
  const setup = await setUp(`leads_${prefix}`);
  platforms.bigquery.insertRows(PROJECT, DATASET, `leads_${prefix}`, rows(prefix, 0, 20_000));
  const conversion = await setup.create();
  const env = { WAREHOUSE_PAGE_ROWS: '500', WAREHOUSE_LEASE_MS: '3000' };
  const first = worker(env);
  // Killed once some pages are published and the cursor has moved, well before the end.
  await until(
    async () => (await getConversion(setup.orgId, conversion.id)).read?.cursor != null && arrived(prefix).length > 0,
    120_000,
    'the first pages',
  );
  first.child.kill('SIGKILL');
  const read = await getConversion(setup.orgId, conversion.id);
  expect(read.read?.last).toBeNull();
  worker(env);
  await until(() => arrived(prefix).length === 20_000, 180_000, 'every row after the restart');
  // Each row is one event at Meta (a page in flight at the kill may be sent twice; Meta counts it once).
  expect(new Set(arrived(prefix).map((entry) => entry.key)).size).toBe(20_000);
  // The new worker did not start over: far fewer than 20,000 rows were sent twice.
  expect(arrived(prefix).filter((entry) => entry.receipts > 1).length).toBeLessThan(5_000);
});

test('rows that make no event are logged as not sent with the reason; the rest are delivered', async () => {
  const prefix = `bad${Date.now()}`;
  const setup = await setUp(`leads_${prefix}`);
  const good = rows(prefix, 0, 50);
  const bad = [
    { ...rows(prefix, 50, 1)[0]!, closed_at: null },
    { ...rows(prefix, 51, 1)[0]!, currency: 'dollars' },
  ];
  platforms.bigquery.insertRows(PROJECT, DATASET, `leads_${prefix}`, [...good, ...bad]);
  const conversion = await setup.create();
  worker();
  await until(() => arrived(prefix).length === 50, 120_000, 'the good rows');
  await until(async () => (await getConversion(setup.orgId, conversion.id)).read?.last?.notSent === 2, 30_000, 'the read summary');
  const [noTime] = await listDeliveries(setup.orgId, conversion.id, { eventId: `${prefix}-50` });
  expect(noTime!.rows.find((row) => row.id === `${prefix}-50`)).toMatchObject({
    status: 'not_sent',
    reason: expect.stringContaining('No event time'),
  });
  const [badCurrency] = await listDeliveries(setup.orgId, conversion.id, { eventId: `${prefix}-51` });
  expect(badCurrency!.rows.find((row) => row.id === `${prefix}-51`)).toMatchObject({
    status: 'not_sent',
    reason: expect.stringContaining('three-letter'),
  });
  expect(
    arrived(prefix)
      .map((entry) => entry.key)
      .some((key) => String(key).includes(`${prefix}-5`) && /-5[01]$/.test(String(key))),
  ).toBe(false);
});

test('a byte limit below what the read bills stops it with BigQuery’s words; nothing is sent', async () => {
  const prefix = `bytes${Date.now()}`;
  const setup = await setUp(`leads_${prefix}`);
  platforms.bigquery.insertRows(PROJECT, DATASET, `leads_${prefix}`, rows(prefix, 0, 10));
  setup.source.maximumBytesBilled = 10_000_000;
  // A 10 MB limit passes the minimum; make the table bill more than that.
  platforms.bigquery.insertRows(PROJECT, DATASET, `leads_${prefix}`, rows(`${prefix}pad`, 0, 200_000, Date.now() - 7200_000));
  const conversion = await setup.create();
  worker();
  await until(async () => Boolean((await getConversion(setup.orgId, conversion.id)).read?.error), 60_000, 'the read error');
  const { read } = await getConversion(setup.orgId, conversion.id);
  expect(read?.error).toMatch(/bill more bytes than this conversion allows.*Query exceeded limit for bytes billed/);
  expect(arrived(prefix)).toHaveLength(0);
});

test('Mixpanel events → Meta once each; a read again (Read now) sends nothing twice, and an event added later is the only one sent next', async () => {
  const prefix = `mp${Date.now()}`;
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']]);
  const warehouseId = await connectWarehouse(orgId, owner.uid, 'mixpanel', platforms.serviceAccountKey);
  const destinationId = await connectDestination(orgId, owner.uid, 'meta_ads');
  const name = `Deal Closed ${prefix}`;
  const now = Math.floor(Date.now() / 1000);
  const deal = (index: number, time: number) => ({
    event: name,
    properties: {
      time,
      distinct_id: `customer-${index}`,
      $insert_id: `${prefix}-${index}`,
      $email: `buyer${index}@example.com`,
      amount: 99,
      currency: 'EUR',
    },
  });
  // 30 deals over the last two days (several in the same second: the cursor's ties).
  platforms.mixpanel.seed(
    SANDBOX_MIXPANEL.projects.US.id,
    Array.from({ length: 30 }, (_, index) => deal(index, now - 2 * 86_400 + Math.floor(index / 3) * 3600)),
  );
  const conversion = await createConversion(orgId, 'growth', owner.uid, {
    name: 'Closed deals',
    source: {
      type: 'mixpanel',
      destinationId: warehouseId,
      events: [name],
      columns: {
        eventId: '$insert_id',
        eventTime: 'time',
        email: '$email',
        externalId: 'distinct_id',
        value: 'amount',
        currency: 'currency',
      },
      eventName: 'Purchase',
      schedule: { every: 'hourly', at: '06:00', timeZone: 'UTC' },
    },
    destination: { destinationId, ...SANDBOX_TARGETS.meta_ads },
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'externalId'] },
  });
  const deals = () => platforms.conversions.list('meta').filter((entry) => String(entry.key).includes(`|Purchase|${prefix}-`));
  worker();
  await until(() => deals().length === 30, 120_000, '30 deals at Meta');
  await until(async () => (await getConversion(orgId, conversion.id)).read?.last?.published === 30, 30_000, 'the first read');

  // Read again from the cursor: the newest deals (the cursor's second) are already taken.
  await requestRead(orgId, conversion.id);
  await until(async () => (await getConversion(orgId, conversion.id)).read?.last?.published === 0, 60_000, 'a read that publishes nothing');
  platforms.mixpanel.seed(SANDBOX_MIXPANEL.projects.US.id, [deal(30, now - 60)]);
  await requestRead(orgId, conversion.id);
  await until(() => deals().length === 31, 60_000, 'the deal added later');
  await until(async () => (await getConversion(orgId, conversion.id)).read?.last?.published === 1, 30_000, 'a read of the new deal alone');
  expect(deals().every((entry) => entry.receipts === 1)).toBe(true);
});
