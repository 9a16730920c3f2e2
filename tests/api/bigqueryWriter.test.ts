import { BigQuery } from '@google-cloud/bigquery';
import { OAuth2Client } from 'google-auth-library';
import { bigQuery } from '@/lib/server/connectors/bigquery';
import { DEFAULT_DATASET, DEFAULT_TABLE, TABLE_COLUMNS } from '@/lib/server/connectors/bigquery/writer';
import type { AdDataSlice, AdDataWriter, Session, WriteTarget } from '@/lib/server/connectors/types';
import type { AdRow } from '@/lib/shared/connections/rows';
import { READ_ONLY_DATASET } from '@/sandbox/bigquery';
import { type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { refusal } from '@/tests/api/helpers/delivery';

// Ad performance written to BigQuery through @google-cloud/bigquery against the sandbox's fake:
// the table is created partitioned and clustered, a slice is replaced through a staging table and
// one MERGE, reruns leave one row per key, and failures are classified.
const APP_URL = 'http://localhost:3999';
const PROJECT = 'acme-warehouse';
const TARGET: WriteTarget = { projectId: PROJECT, dataset: 'marketing', table: 'ad_rows' };

let platforms: FakePlatforms;
let session: Session;
let logged: jest.SpyInstance;
const writer = bigQuery.writer as AdDataWriter;

function row(date: string, campaign: number, overrides: Partial<AdRow> = {}): AdRow {
  return {
    date,
    platform: 'google_ads',
    account_id: '1234567890',
    account_name: 'Acme Shoes',
    currency: 'USD',
    time_zone: 'America/New_York',
    campaign_id: `c${campaign}`,
    campaign_name: `Campaign ${campaign}`,
    ad_group_id: null,
    ad_group_name: null,
    ad_id: null,
    ad_name: null,
    impressions: 1000 + campaign,
    clicks: 10 + campaign,
    spend: 12.34 + campaign,
    conversions: 1.5,
    conversion_value: 99.99,
    ...overrides,
  };
}

const slice = (overrides: Partial<AdDataSlice> = {}): AdDataSlice => ({
  connectionId: 'conn-a',
  platform: 'google_ads',
  accountId: '1234567890',
  from: '2026-03-01',
  to: '2026-03-03',
  ...overrides,
});

const days = ['2026-03-01', '2026-03-02', '2026-03-03'];
const windowRows = (campaigns: number[], overrides: Partial<AdRow> = {}) =>
  days.flatMap((date) => campaigns.map((campaign) => row(date, campaign, overrides)));

const stored = (target: WriteTarget = TARGET) => platforms.bigquery.rows(target.projectId, target.dataset!, target.table!);
/** The names of the sandbox's tables in a dataset (of any project). */
const tablesIn = (datasetId: string) =>
  platforms.bigquery
    .tables()
    .filter((table) => table.datasetId === datasetId)
    .map((table) => table.tableId);
const keyOf = (stored: Record<string, unknown>) =>
  [
    stored.connection_id,
    stored.platform,
    stored.account_id,
    stored.campaign_id,
    stored.ad_group_id ?? '',
    stored.ad_id ?? '',
    stored.date,
  ].join('/');
const withoutSyncedAt = (entry: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(entry).filter(([name]) => name !== 'synced_at'));
const storedFor = (connectionId: string, accountId = '1234567890') =>
  stored().filter((entry) => entry.connection_id === connectionId && entry.account_id === accountId);

/** A client of our own, with the session's token: what any BigQuery user would run. */
function client(accessToken = session.accessToken) {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: accessToken });
  return new BigQuery({ projectId: PROJECT, apiEndpoint: `${platforms.url}/bigquery`, authClient: auth, autoRetry: false });
}

beforeAll(async () => {
  // Refusals are logged for operators; here they are expected.
  logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  const connection = await bigQuery.auth.key!.connect({ serviceAccountKey: platforms.serviceAccountKey });
  session = await bigQuery.openSession(connection.credential);
});
afterAll(async () => {
  logged.mockRestore();
  await platforms.close();
});

describe('checking the destination', () => {
  test('a missing dataset will be created; an existing one is probed for writing; a read-only one is refused', async () => {
    expect(await writer.check(session, { projectId: PROJECT, dataset: 'not_yet' })).toMatch(/does not exist yet: it will be created/);
    await writer.replace(session, { projectId: PROJECT, dataset: 'probe_me', table: 't' }, slice(), []);
    expect(await writer.check(session, { projectId: PROJECT, dataset: 'probe_me', table: 't' })).toMatch(
      /exists and is writable; table t has the expected columns/,
    );
    expect(await writer.check(session, { projectId: PROJECT, dataset: 'probe_me', table: 'other' })).toMatch(
      /exists and is writable; table other will be created/,
    );
    // The probe table is gone again.
    expect(tablesIn('probe_me')).toEqual(['t']);

    const readOnly = await refusal(writer.check(session, { projectId: READ_ONLY_DATASET.projectId, dataset: READ_ONLY_DATASET.datasetId }));
    expect(readOnly.code).toBe('forbidden');
    expect(readOnly.message).toMatch(/Permission bigquery\.tables\.create denied/);
    const unknownProject = await refusal(writer.check(session, { projectId: 'nobody-project', dataset: 'x' }));
    expect(unknownProject.code).toBe('invalid');
  });

  test('defaults to dataset signalbridge, table ad_performance', async () => {
    expect(await writer.check(session, { projectId: PROJECT })).toContain(`${PROJECT}.${DEFAULT_DATASET}`);
    expect(DEFAULT_TABLE).toBe('ad_performance');
  });
});

describe('replacing a slice', () => {
  test('the first write creates a partitioned, clustered table and the rows read back exactly', async () => {
    const rows = windowRows([1, 2]).concat(
      row('2026-03-02', 3, { ad_group_id: 'g1', ad_group_name: 'Group 1', ad_id: 'ad1', ad_name: 'Ad 1' }),
    );
    const result = await writer.replace(session, TARGET, slice(), rows);
    expect(result).toMatchObject({ written: 7, failed: [] });
    // Dataset get + insert, table get + insert, staging insert, upload + job poll, MERGE insert + poll, staging delete.
    expect(result.calls).toBe(10);

    const table = platforms.bigquery.table(PROJECT, 'marketing', 'ad_rows')!;
    expect(table.timePartitioning).toEqual({ type: 'DAY', field: 'date' });
    expect(table.clustering).toEqual({ fields: ['platform', 'account_id'] });
    expect(table.expirationTime).toBeUndefined();
    expect((table.schema as { fields: Array<{ name: string; type: string }> }).fields.map((field) => [field.name, field.type])).toEqual(
      TABLE_COLUMNS,
    );
    // The staging table was dropped.
    expect(tablesIn('marketing')).toEqual(['ad_rows']);

    const back = stored();
    expect(back).toHaveLength(7);
    const adRow = back.find((entry) => entry.ad_id === 'ad1')!;
    expect(adRow).toEqual({
      date: '2026-03-02',
      platform: 'google_ads',
      account_id: '1234567890',
      account_name: 'Acme Shoes',
      currency: 'USD',
      time_zone: 'America/New_York',
      campaign_id: 'c3',
      campaign_name: 'Campaign 3',
      ad_group_id: 'g1',
      ad_group_name: 'Group 1',
      ad_id: 'ad1',
      ad_name: 'Ad 1',
      impressions: 1003,
      clicks: 13,
      spend: '15.34',
      conversions: 1.5,
      conversion_value: '99.99',
      connection_id: 'conn-a',
      synced_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(back.find((entry) => entry.campaign_id === 'c1' && entry.date === '2026-03-01')).toMatchObject({
      ad_group_id: null,
      ad_id: null,
      spend: '13.34',
    });
  });

  test('tabledata.list answers in BigQuery’s {f: [{v}]} form, paged, and the library reads it', async () => {
    const base = `${platforms.url}/bigquery/bigquery/v2/projects/${PROJECT}/datasets/marketing/tables/ad_rows/data`;
    const headers = { Authorization: `Bearer ${session.accessToken}` };
    const first = (await (await fetch(`${base}?maxResults=5`, { headers })).json()) as {
      totalRows: string;
      pageToken?: string;
      rows: Array<{ f: Array<{ v: string | null }> }>;
    };
    expect(first.totalRows).toBe('7');
    expect(first.rows).toHaveLength(5);
    expect(first.pageToken).toBeDefined();
    const second = (await (await fetch(`${base}?maxResults=5&pageToken=${first.pageToken}`, { headers })).json()) as typeof first;
    expect(second.rows).toHaveLength(2);
    expect(second.pageToken).toBeUndefined();
    const spend = TABLE_COLUMNS.findIndex(([name]) => name === 'spend');
    const date = TABLE_COLUMNS.findIndex(([name]) => name === 'date');
    const impressions = TABLE_COLUMNS.findIndex(([name]) => name === 'impressions');
    expect(first.rows[0]!.f[spend]).toEqual({ v: '13.34' });
    expect(first.rows[0]!.f[date]).toEqual({ v: '2026-03-01' });
    expect(first.rows[0]!.f[impressions]).toEqual({ v: '1001' });

    const [rows] = await client().dataset('marketing').table('ad_rows').getRows();
    expect(rows).toHaveLength(7);
    expect(String(rows[0].spend)).toBe('13.34');
    expect(rows[0].date.value).toBe('2026-03-01');
    expect(rows[0].impressions).toBe(1001);
  });

  test('running the same slice again leaves one row per key', async () => {
    const before = stored();
    await writer.replace(
      session,
      TARGET,
      slice(),
      windowRows([1, 2]).concat(row('2026-03-02', 3, { ad_group_id: 'g1', ad_group_name: 'Group 1', ad_id: 'ad1', ad_name: 'Ad 1' })),
    );
    const after = stored();
    expect(after).toHaveLength(7);
    expect(new Set(after.map(keyOf)).size).toBe(7);
    expect(after.map(withoutSyncedAt)).toEqual(expect.arrayContaining(before.map(withoutSyncedAt)));
  });

  test('changed values are updated; a row missing from the rerun is deleted; other slices are untouched', async () => {
    // Neighbours: another account, another connection, and a day outside the window.
    await writer.replace(
      session,
      TARGET,
      slice({ accountId: '2345678901' }),
      windowRows([1], { account_id: '2345678901', account_name: 'Acme Outlet' }),
    );
    await writer.replace(session, TARGET, slice({ connectionId: 'conn-b' }), windowRows([1, 2]));
    await writer.replace(session, TARGET, slice({ from: '2026-02-28', to: '2026-02-28' }), [row('2026-02-28', 1), row('2026-02-28', 2)]);
    expect(stored()).toHaveLength(7 + 3 + 6 + 2);

    // Campaign 2 is gone from the window, the ad row too, and campaign 1 restated its spend.
    const result = await writer.replace(session, TARGET, slice(), windowRows([1], { spend: 20.5, clicks: 42 }));
    expect(result.written).toBe(3);
    const mine = storedFor('conn-a').filter((entry) => String(entry.date) >= '2026-03-01');
    expect(mine).toHaveLength(3);
    expect(mine.every((entry) => entry.campaign_id === 'c1' && entry.spend === '20.5' && entry.clicks === 42)).toBe(true);
    expect(storedFor('conn-a', '2345678901')).toHaveLength(3);
    expect(storedFor('conn-b')).toHaveLength(6);
    expect(storedFor('conn-b').every((entry) => entry.spend !== '20.5')).toBe(true);
    expect(storedFor('conn-a').filter((entry) => entry.date === '2026-02-28')).toHaveLength(2);
    expect(stored()).toHaveLength(3 + 3 + 6 + 2);
  });

  test('an empty window deletes that slice only', async () => {
    await writer.replace(session, TARGET, slice({ from: '2026-03-02', to: '2026-03-03' }), []);
    expect(
      storedFor('conn-a')
        .map((entry) => entry.date)
        .sort(),
    ).toEqual(['2026-02-28', '2026-02-28', '2026-03-01']);
    expect(storedFor('conn-b')).toHaveLength(6);
    expect(storedFor('conn-a', '2345678901')).toHaveLength(3);
  });

  test('the same key given twice is written once, with the last values', async () => {
    await writer.replace(session, TARGET, slice({ from: '2026-03-01', to: '2026-03-01' }), [
      row('2026-03-01', 1, { clicks: 1 }),
      row('2026-03-01', 1, { clicks: 2 }),
    ]);
    expect(storedFor('conn-a').filter((entry) => entry.date === '2026-03-01')).toEqual([expect.objectContaining({ clicks: 2 })]);
  });

  test('a row outside the slice is a programming error, not a write', async () => {
    await expect(writer.replace(session, TARGET, slice(), [row('2026-04-01', 1)])).rejects.toThrow(/outside the slice/);
  });
});

describe('failures', () => {
  test('a value of the wrong type fails the load job with BigQuery’s message: invalid', async () => {
    const error = await refusal(writer.replace(session, TARGET, slice(), [row('2026-03-01', 1, { clicks: 1.5 })]));
    expect(error.code).toBe('invalid');
    expect(error.message).toMatch(/Could not convert value 'double_value: 1.5' to integer\. Field: clicks/);
    // Nothing changed, and the staging table was dropped all the same.
    expect(storedFor('conn-a').filter((entry) => entry.date === '2026-03-01')).toEqual([expect.objectContaining({ clicks: 2 })]);
    expect(tablesIn('marketing')).toEqual(['ad_rows']);
  });

  test('a load with an unknown column fails the job', async () => {
    const staging = client().dataset('marketing').table('ad_rows');
    const loaded = new Promise((resolve, reject) => {
      const stream = staging.createWriteStream({ sourceFormat: 'NEWLINE_DELIMITED_JSON' });
      stream.on('error', reject).on('complete', resolve);
      stream.end('{"date":"2026-03-01","surprise":1}\n');
    });
    await expect(loaded).rejects.toMatchObject({
      errors: expect.arrayContaining([
        expect.objectContaining({ reason: 'invalid', message: expect.stringContaining('No such field: surprise') }),
      ]),
    });
  });

  test('an existing table without our columns is refused in words', async () => {
    await client()
      .dataset('marketing')
      .createTable('foreign', { schema: [{ name: 'date', type: 'DATE' }] });
    const error = await refusal(writer.replace(session, { ...TARGET, table: 'foreign' }, slice(), []));
    expect(error.code).toBe('invalid');
    expect(error.message).toMatch(/has no column platform/);
  });

  test('a query naming an unknown column is refused as invalidQuery; SELECT with parameters runs', async () => {
    const bigquery = client();
    await expect(bigquery.createQueryJob({ query: 'SELECT nope FROM `acme-warehouse.marketing.ad_rows`' })).rejects.toMatchObject({
      errors: [expect.objectContaining({ reason: 'invalidQuery' })],
    });
    const [rows] = await bigquery.query({
      query:
        'SELECT campaign_id, clicks AS c, spend FROM `acme-warehouse.marketing.ad_rows` WHERE connection_id = @connection AND date BETWEEN @from AND @to ORDER BY campaign_id DESC, date LIMIT 4',
      params: { connection: 'conn-b', from: BigQuery.date('2026-03-01'), to: BigQuery.date('2026-03-02') },
      types: { connection: 'STRING', from: 'DATE', to: 'DATE' },
    });
    expect(rows.map((entry: { campaign_id: string; c: number }) => [entry.campaign_id, entry.c])).toEqual([
      ['c2', 12],
      ['c2', 12],
      ['c1', 11],
      ['c1', 11],
    ]);
    expect(String(rows[0].spend)).toBe('14.34');
  });

  test('an unknown or revoked token is needs_reauth', async () => {
    const unknown = await refusal(writer.replace({ accessToken: 'ya29.unknown', rotated: null }, TARGET, slice(), []));
    expect(unknown.code).toBe('needs_reauth');
    expect((await refusal(writer.check({ accessToken: 'ya29.unknown', rotated: null }, TARGET))).code).toBe('needs_reauth');
    // This session is the service account's: revoke its tokens too.
    platforms.revokeAll('google', { serviceAccounts: true });
    const revoked = await refusal(writer.replace(session, TARGET, slice(), windowRows([1])));
    expect(revoked.code).toBe('needs_reauth');
    expect(revoked.message).toMatch(/Reconnect BigQuery/);
  });
});
