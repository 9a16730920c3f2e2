import { BigQuery, type Job } from '@google-cloud/bigquery';
import { OAuth2Client } from 'google-auth-library';
import { bigQuery } from '@/lib/server/connectors/bigquery';
import { describeSource, readRows } from '@/lib/server/connectors/bigquery/source';
import type { Session } from '@/lib/server/connectors/types';
import type { BigQuerySource } from '@/lib/shared/conversions/conversion';
import { DEMO_ANONYMOUS_LEAD, DEMO_SOURCE_TABLE } from '@/sandbox/bigquery';
import { type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';

// The sandbox's BigQuery as a conversion source, through @google-cloud/bigquery the way the reader
// runs it: a table or the user's SELECT as a subquery, from a cursor on, in cursor order, paged;
// a dry run first (statement type, bytes, schema); maximumBytesBilled on every job.
const PROJECT = 'acme-warehouse';
const DATASET = 'source_test';
const DEMO = `\`${DEMO_SOURCE_TABLE.projectId}.${DEMO_SOURCE_TABLE.datasetId}.${DEMO_SOURCE_TABLE.tableId}\``;
const EVENTS = `\`${PROJECT}.${DATASET}.events\``;
const LIMIT = '1000000000';
const MB = 1024 * 1024;

let platforms: FakePlatforms;
let session: Session;

/** A client of our own, with the session's token: what the reader builds. */
function client() {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: session.accessToken });
  return new BigQuery({ projectId: PROJECT, apiEndpoint: `${platforms.url}/bigquery`, authClient: auth, autoRetry: false });
}

interface Read {
  rows: Array<Record<string, unknown>>;
  pages: number;
  job: Job;
}

/** One query job, then its result page by page (getQueryResults with a page token), as the reader reads. */
async function read(
  query: string,
  options: { params?: Record<string, unknown>; types?: Record<string, string>; maxResults?: number; maximumBytesBilled?: string } = {},
): Promise<Read> {
  const [job] = await client().createQueryJob({
    query,
    useLegacySql: false,
    maximumBytesBilled: options.maximumBytesBilled ?? LIMIT,
    ...(options.params ? { params: options.params, types: options.types } : {}),
  });
  const rows: Array<Record<string, unknown>> = [];
  let pageToken: string | undefined;
  let pages = 0;
  do {
    const [page, next] = await job.getQueryResults({ maxResults: options.maxResults ?? 5000, pageToken, autoPaginate: false });
    rows.push(...(page as Array<Record<string, unknown>>));
    pages += 1;
    pageToken = (next as { pageToken?: string } | null)?.pageToken;
  } while (pageToken);
  return { rows, pages, job };
}

/** The error a promise rejects with (the library's ApiError: `errors` with reason and message). */
async function failure(
  promise: Promise<unknown>,
): Promise<{ code?: number; message: string; errors?: Array<{ reason: string; message: string }> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: number; message: string; errors?: Array<{ reason: string; message: string }> };
  }
  throw new Error('Expected a rejection');
}

/** Where a piece of a one-line query stands, as BigQuery's messages say it: [1:column]. */
const at = (query: string, piece: string) => `[1:${query.indexOf(piece) + 1}]`;

/** What BigQuery counts for billing: each read column's cells, 8 bytes for numbers and times, 16 for NUMERIC, 2 + UTF-8 length for STRING. */
function bytesOf(rows: Array<Record<string, unknown>>, columns: Record<string, string>): number {
  const size: Record<string, (value: unknown) => number> = {
    STRING: (value) => 2 + Buffer.byteLength(String(value)),
    NUMERIC: () => 16,
    INT64: () => 8,
    TIMESTAMP: () => 8,
    DATE: () => 8,
    DATETIME: () => 8,
  };
  return rows.reduce<number>(
    (total, row) =>
      total + Object.entries(columns).reduce((sum, [name, type]) => sum + (row[name] === null ? 0 : size[type]!(row[name])), 0),
    0,
  );
}

const DEMO_COLUMNS: Record<string, string> = {
  lead_id: 'STRING',
  email: 'STRING',
  phone: 'STRING',
  first_name: 'STRING',
  last_name: 'STRING',
  gclid: 'STRING',
  fbclid: 'STRING',
  value: 'NUMERIC',
  currency: 'STRING',
  stage: 'STRING',
  updated_at: 'TIMESTAMP',
};
const demoRows = () => platforms.bigquery.rows(DEMO_SOURCE_TABLE.projectId, DEMO_SOURCE_TABLE.datasetId, DEMO_SOURCE_TABLE.tableId);
const pick = (names: string[]) => Object.fromEntries(names.map((name) => [name, DEMO_COLUMNS[name]!]));

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  const connection = await bigQuery.auth.key!.connect({ serviceAccountKey: platforms.serviceAccountKey });
  session = await bigQuery.openSession(connection.credential);

  // Ten events, one a day and hour apart, each cursor type its own column.
  platforms.bigquery.createTable(PROJECT, DATASET, 'events', [
    { name: 'id', type: 'INT64' },
    { name: 'code', type: 'STRING' },
    { name: 'day', type: 'DATE' },
    { name: 'at', type: 'TIMESTAMP' },
    { name: 'local', type: 'DATETIME' },
    { name: 'amount', type: 'NUMERIC' },
  ]);
  platforms.bigquery.insertRows(
    PROJECT,
    DATASET,
    'events',
    // Inserted out of order: the reads order them.
    [7, 2, 9, 0, 4, 1, 8, 3, 6, 5].map((index) => ({
      id: index + 1,
      code: `c${String(index + 1).padStart(2, '0')}`,
      day: `2025-01-${String(index + 1).padStart(2, '0')}`,
      at: `2025-01-${String(index + 1).padStart(2, '0')}T${String(index).padStart(2, '0')}:30:00.250Z`,
      local: `2025-01-${String(index + 1).padStart(2, '0')} 08:00:00`,
      amount: index % 2 ? `${index}.50` : index * 10,
    })),
  );
});
afterAll(async () => {
  await platforms.close();
});

describe('the demo source table', () => {
  test('acme-warehouse.crm.qualified_leads: 40 leads over the last 10 days, qualified or won, one with no email and no phone', async () => {
    const [metadata] = await client().dataset(DEMO_SOURCE_TABLE.datasetId).table(DEMO_SOURCE_TABLE.tableId).getMetadata();
    expect(metadata.numRows).toBe('40');
    expect(Number(metadata.numBytes)).toBe(bytesOf(demoRows(), DEMO_COLUMNS));
    expect((metadata.schema.fields as Array<{ name: string; type: string }>).map((field) => [field.name, field.type])).toEqual(
      Object.entries(DEMO_COLUMNS),
    );

    const rows = demoRows();
    expect(rows).toHaveLength(40);
    const now = Date.now();
    for (const row of rows) {
      const time = Date.parse(String(row.updated_at));
      expect(time).toBeGreaterThan(now - 10 * 86_400_000 - 60_000);
      expect(time).toBeLessThan(now);
      expect(row.currency).toBe('USD');
      expect([row.stage, row.value]).toEqual(row.stage === 'won' ? ['won', '1200'] : ['qualified', '250']);
    }
    expect(rows.filter((row) => row.stage === 'won')).toHaveLength(10);
    expect(rows.filter((row) => row.gclid).length).toBeGreaterThan(5);
    expect(rows.filter((row) => row.fbclid).length).toBeGreaterThan(5);
    expect(rows.filter((row) => row.email === null && row.phone === null).map((row) => row.lead_id)).toEqual([DEMO_ANONYMOUS_LEAD]);
  });

  test('read as the reader reads a table: a first read, then from a cursor on', async () => {
    const first = await read(`SELECT * FROM ${DEMO} WHERE \`updated_at\` IS NOT NULL ORDER BY \`updated_at\``);
    expect(first.rows).toHaveLength(40);
    const times = first.rows.map((row) => (row.updated_at as { value: string }).value);
    expect([...times].sort()).toEqual(times);
    expect(String(first.rows[3]!.value)).toBe('1200');

    const cursor = times[30]!;
    const next = await read(`SELECT * FROM ${DEMO} WHERE \`updated_at\` >= @cursor ORDER BY \`updated_at\``, {
      params: { cursor: BigQuery.timestamp(cursor) },
      types: { cursor: 'TIMESTAMP' },
    });
    expect(next.rows.map((row) => (row.updated_at as { value: string }).value)).toEqual(times.slice(30));
  });
});

describe('subqueries in FROM', () => {
  // `at` is reserved in BigQuery, `local` in the fake's parser: quoted, as a user would quote them.
  const inner = `SELECT id, code, day, \`at\` AS happened, \`local\`, amount FROM ${EVENTS} WHERE id > 0`;
  const fromCursor = (column: string) => `SELECT * FROM (${inner}) AS source WHERE \`${column}\` >= @cursor ORDER BY \`${column}\``;
  const ids = (result: Read) => result.rows.map((row) => row.id);

  test('a TIMESTAMP cursor', async () => {
    const result = await read(fromCursor('happened'), {
      params: { cursor: BigQuery.timestamp('2025-01-07T06:30:00.250Z') },
      types: { cursor: 'TIMESTAMP' },
    });
    expect(ids(result)).toEqual([7, 8, 9, 10]);
    // Microseconds count: a cursor just past a row leaves it out.
    const after = await read(fromCursor('happened'), {
      params: { cursor: BigQuery.timestamp('2025-01-07T06:30:00.250001Z') },
      types: { cursor: 'TIMESTAMP' },
    });
    expect(ids(after)).toEqual([8, 9, 10]);
    expect((result.rows[0]!.happened as { value: string }).value).toBe('2025-01-07T06:30:00.250Z');
  });

  test('an INT64 cursor, as text or as a number', async () => {
    expect(ids(await read(fromCursor('id'), { params: { cursor: '8' }, types: { cursor: 'INT64' } }))).toEqual([8, 9, 10]);
    expect(ids(await read(fromCursor('id'), { params: { cursor: 9 }, types: { cursor: 'INT64' } }))).toEqual([9, 10]);
  });

  test('a DATE cursor (BigQuery.date), a DATETIME one (BigQuery.datetime)', async () => {
    expect(ids(await read(fromCursor('day'), { params: { cursor: BigQuery.date('2025-01-09') }, types: { cursor: 'DATE' } }))).toEqual([
      9, 10,
    ]);
    const local = await read(fromCursor('local'), {
      params: { cursor: BigQuery.datetime('2025-01-10T08:00:00') },
      types: { cursor: 'DATETIME' },
    });
    expect(ids(local)).toEqual([10]);
    expect((local.rows[0]!.local as { value: string }).value).toBe('2025-01-10T08:00:00');
    expect(
      ids(
        await read(fromCursor('local'), {
          params: { cursor: BigQuery.datetime('2025-01-09 08:00:00.000001') },
          types: { cursor: 'DATETIME' },
        }),
      ),
    ).toEqual([10]);
  });

  test('a STRING cursor, a NUMERIC one', async () => {
    expect(ids(await read(fromCursor('code'), { params: { cursor: 'c08' }, types: { cursor: 'STRING' } }))).toEqual([8, 9, 10]);
    const amounts = await read(fromCursor('amount'), { params: { cursor: '40' }, types: { cursor: 'NUMERIC' } });
    expect(amounts.rows.map((row) => String(row.amount))).toEqual(['40', '60', '80']);
  });

  test('the inner select’s aliases, WHERE, ORDER BY and LIMIT; the preview', async () => {
    const [rows] = await client().query({
      query: `SELECT * FROM (SELECT code AS c, id FROM ${EVENTS} WHERE id <= 6 ORDER BY id DESC LIMIT 3) AS source LIMIT 20`,
      useLegacySql: false,
      maximumBytesBilled: LIMIT,
    });
    expect(rows).toEqual([
      { c: 'c06', id: 6 },
      { c: 'c05', id: 5 },
      { c: 'c04', id: 4 },
    ]);
    const [preview] = await client().query({
      query: `SELECT * FROM (SELECT lead_id, email FROM ${DEMO}) source LIMIT 20`,
      useLegacySql: false,
      maximumBytesBilled: LIMIT,
    });
    expect(preview).toHaveLength(20);
    expect(Object.keys(preview[0] as object)).toEqual(['lead_id', 'email']);
    // Subqueries nest; the outer query names the alias.
    const [nested] = await client().query({
      query: `SELECT s.id FROM (SELECT * FROM (SELECT id FROM ${EVENTS}) WHERE id > 8) AS s ORDER BY s.id`,
    });
    expect(nested).toEqual([{ id: 9 }, { id: 10 }]);
  });

  test('a cursor compared with a column of another type is refused as BigQuery does', async () => {
    const query = fromCursor('happened');
    const error = await failure(read(query, { params: { cursor: 5 }, types: { cursor: 'INT64' } }));
    expect(error.errors).toEqual([
      expect.objectContaining({
        reason: 'invalidQuery',
        message: `No matching signature for operator >= for argument types: TIMESTAMP, INT64. Supported signature: ANY >= ANY at ${at(query, '`happened` >=')}`,
      }),
    ]);
  });
});

describe('a user’s statement, as the reader checks and reads it', () => {
  const source = (sql: string): BigQuerySource => ({
    type: 'bigquery',
    destinationId: 'unused',
    projectId: PROJECT,
    mode: 'sql',
    table: '',
    sql,
    cursorColumn: 'updated_at',
    maximumBytesBilled: Number(LIMIT),
    columns: { eventId: 'lead_id', eventTime: 'updated_at' },
    eventName: 'Lead',
    schedule: { every: 'hourly', at: '06:00', timeZone: 'UTC' },
  });

  test('a WITH … SELECT: its columns from the dry run, its rows in cursor order', async () => {
    const won = source(`WITH won AS (SELECT lead_id, updated_at FROM ${DEMO} WHERE stage = 'won')\nSELECT * FROM won -- closed deals`);
    const described = await describeSource(session, won);
    expect(described.columns).toEqual([
      { name: 'lead_id', type: 'STRING' },
      { name: 'updated_at', type: 'TIMESTAMP' },
    ]);
    const rows: Array<Record<string, unknown>> = [];
    for await (const page of readRows(session, won, null, { columns: described.columns })) rows.push(...page.rows);
    const expected = demoRows()
      .filter((row) => row.stage === 'won')
      .sort((a, b) => String(a.updated_at).localeCompare(String(b.updated_at)))
      .map((row) => row.lead_id);
    expect(rows.map((row) => row.lead_id)).toEqual(expected);
    expect(expected).toHaveLength(10);
  });

  test('a statement that is no SELECT is refused by its type, as the dry run names it; nothing runs', async () => {
    await expect(describeSource(session, source(`DELETE FROM ${DEMO} WHERE TRUE`))).rejects.toMatchObject({
      code: 'invalid',
      message: 'Only a SELECT statement can be read; this one is a DELETE.',
    });
    expect(demoRows()).toHaveLength(40);
  });
});

describe('unknown columns', () => {
  test('in the outer query, over a table or a subquery', async () => {
    const direct = `SELECT emial FROM ${DEMO}`;
    expect((await failure(client().createQueryJob({ query: direct }))).errors).toEqual([
      expect.objectContaining({ reason: 'invalidQuery', message: 'Unrecognized name: emial at [1:8]' }),
    ]);

    const outer = `SELECT * FROM (SELECT lead_id, email FROM ${DEMO}) AS source WHERE \`updated_at\` >= @cursor ORDER BY \`updated_at\``;
    const error = await failure(
      read(outer, { params: { cursor: BigQuery.timestamp('2025-01-01T00:00:00Z') }, types: { cursor: 'TIMESTAMP' } }),
    );
    expect(error.errors).toEqual([
      expect.objectContaining({ reason: 'invalidQuery', message: `Unrecognized name: updated_at at ${at(outer, '`updated_at`')}` }),
    ]);

    const qualified = `SELECT source.nope FROM (SELECT lead_id FROM ${DEMO}) AS source`;
    expect((await failure(client().query(qualified))).errors).toEqual([
      expect.objectContaining({ reason: 'invalidQuery', message: 'Name nope not found inside source at [1:8]' }),
    ]);
  });

  test('in the subquery, also on a later line, and in a dry run', async () => {
    const inner = `SELECT * FROM (SELECT lead_id, emial FROM ${DEMO}) AS source LIMIT 20`;
    expect((await failure(client().query({ query: inner, maximumBytesBilled: LIMIT }))).errors).toEqual([
      expect.objectContaining({ reason: 'invalidQuery', message: `Unrecognized name: emial at ${at(inner, 'emial')}` }),
    ]);
    const multiline = `SELECT * FROM (SELECT lead_id,\n  phnoe\nFROM ${DEMO}) AS source`;
    expect((await failure(client().createQueryJob({ query: multiline, dryRun: true }))).errors).toEqual([
      expect.objectContaining({ reason: 'invalidQuery', message: 'Unrecognized name: phnoe at [2:3]' }),
    ]);
  });
});

describe('bytes processed and maximumBytesBilled', () => {
  beforeAll(() => {
    // 12,000 rows of 1,000-character notes: about 11.5 MB when read, 94 KB without them.
    platforms.bigquery.createTable(PROJECT, DATASET, 'notes', [
      { name: 'id', type: 'INT64' },
      { name: 'note', type: 'STRING' },
    ]);
    platforms.bigquery.insertRows(
      PROJECT,
      DATASET,
      'notes',
      Array.from({ length: 12_000 }, (_, index) => ({ id: index, note: 'é'.repeat(500) })),
    );
  });
  const NOTES = `\`${PROJECT}.${DATASET}.notes\``;
  const notesBytes = 12_000 * (2 + 1000);
  const idBytes = 12_000 * 8;

  test('a job reports the bytes of the columns it reads, and bills them rounded up to the MB, 10 MB at least', async () => {
    const all = await read(`SELECT * FROM (SELECT id, note FROM ${NOTES}) AS source LIMIT 1`);
    const statistics = all.job.metadata.statistics;
    expect(statistics.totalBytesProcessed).toBe(String(idBytes + notesBytes));
    expect(statistics.query).toMatchObject({
      statementType: 'SELECT',
      totalBytesProcessed: String(idBytes + notesBytes),
      totalBytesBilled: String(12 * MB),
    });

    // Only the columns the outer query needs are read.
    const ids = await read(`SELECT id FROM (SELECT id, note FROM ${NOTES}) AS source WHERE id < 3`);
    expect(ids.job.metadata.statistics.query).toMatchObject({ totalBytesProcessed: String(idBytes), totalBytesBilled: String(10 * MB) });

    const selected = ['lead_id', 'email', 'updated_at'];
    const demo = await read(
      `SELECT * FROM (SELECT ${selected.join(', ')} FROM ${DEMO}) AS source WHERE \`updated_at\` IS NOT NULL ORDER BY \`updated_at\``,
    );
    expect(Number(demo.job.metadata.statistics.totalBytesProcessed)).toBe(bytesOf(demoRows(), pick(selected)));

    // jobs.query answers with them too (the library's query(), unpaginated, hands on its response third).
    const answer = (await client().query(
      { query: `SELECT * FROM ${DEMO}`, maximumBytesBilled: LIMIT },
      { autoPaginate: false },
    )) as unknown as [unknown[], unknown, Record<string, unknown>];
    const response = answer[2];
    expect(response).toMatchObject({ totalBytesProcessed: String(bytesOf(demoRows(), DEMO_COLUMNS)) });
  });

  test('a job that would bill more than maximumBytesBilled fails with bytesBilledLimitExceeded', async () => {
    const query = `SELECT * FROM ${NOTES}`;
    const message = `Query exceeded limit for bytes billed: 12000000. ${12 * MB} or higher required.`;
    const inserted = await failure(client().createQueryJob({ query, maximumBytesBilled: '12000000' }));
    expect(inserted.errors).toEqual([{ reason: 'bytesBilledLimitExceeded', message }]);
    expect(inserted.message).toBe(message);
    // jobs.query (the library's query()) answers 400 with the same error.
    const queried = await failure(client().query({ query: `SELECT id FROM ${NOTES}`, maximumBytesBilled: '1000' }));
    expect(queried.code).toBe(400);
    expect(queried.errors).toEqual([
      expect.objectContaining({
        reason: 'bytesBilledLimitExceeded',
        message: `Query exceeded limit for bytes billed: 1000. ${10 * MB} or higher required.`,
      }),
    ]);

    const failed = platforms.bigquery.jobs().filter((job) => job.error?.reason === 'bytesBilledLimitExceeded');
    expect(failed.map((job) => [job.sql, job.maximumBytesBilled, job.totalBytesBilled])).toEqual([
      [query, 12_000_000, 0],
      [`SELECT id FROM ${NOTES}`, 1000, 0],
    ]);
    // The failed job is kept, DONE with its error.
    const [metadata] = await client()
      .job(platforms.bigquery.jobs().find((job) => job.sql === query)!.jobId)
      .getMetadata();
    expect(metadata.status).toMatchObject({ state: 'DONE', errorResult: { reason: 'bytesBilledLimitExceeded', message } });
    // At the limit it runs (LIMIT reads every row all the same).
    expect((await read(`${query} LIMIT 1`, { maximumBytesBilled: String(12 * MB) })).rows).toHaveLength(1);
  });
});

describe('dry runs', () => {
  test('a SELECT: statement type, bytes and result schema; nothing runs, no job is kept', async () => {
    const query = `SELECT * FROM (SELECT lead_id, value, updated_at, 1 AS one, stage = 'won' AS won FROM ${DEMO}) AS source WHERE \`updated_at\` >= @cursor ORDER BY \`updated_at\``;
    const [job] = await client().createQueryJob({
      query,
      dryRun: true,
      useLegacySql: false,
      // A dry run bills nothing: the limit does not apply.
      maximumBytesBilled: '1',
      params: { cursor: BigQuery.timestamp('2020-01-01T00:00:00Z') },
      types: { cursor: 'TIMESTAMP' },
    });
    const metadata = job.metadata;
    expect(metadata.status).toEqual({ state: 'DONE' });
    expect(metadata.configuration.dryRun).toBe(true);
    expect(metadata.jobReference).toEqual({ projectId: PROJECT, location: 'US' });
    expect(metadata.statistics.totalBytesProcessed).toBe(String(bytesOf(demoRows(), pick(['lead_id', 'value', 'updated_at', 'stage']))));
    expect(metadata.statistics.query).toMatchObject({
      statementType: 'SELECT',
      totalBytesBilled: '0',
      schema: {
        fields: [
          { name: 'lead_id', type: 'STRING', mode: 'NULLABLE' },
          { name: 'value', type: 'NUMERIC', mode: 'NULLABLE' },
          { name: 'updated_at', type: 'TIMESTAMP', mode: 'NULLABLE' },
          { name: 'one', type: 'INTEGER', mode: 'NULLABLE' },
          { name: 'won', type: 'BOOLEAN', mode: 'NULLABLE' },
        ],
      },
    });
    expect((await failure(job.getMetadata())).code).toBe(404);
    expect(platforms.bigquery.jobs().filter((entry) => entry.sql === query)).toEqual([
      expect.objectContaining({ dryRun: true, statementType: 'SELECT', maximumBytesBilled: 1, totalBytesBilled: 0, error: null }),
    ]);
  });

  test('a dry run still checks tables and parameters', async () => {
    expect((await failure(client().createQueryJob({ query: `SELECT * FROM \`${PROJECT}.crm.nope\``, dryRun: true }))).code).toBe(404);
    const query = `SELECT * FROM ${DEMO} WHERE updated_at >= @since`;
    expect((await failure(client().createQueryJob({ query, dryRun: true }))).errors).toEqual([
      expect.objectContaining({ reason: 'invalidQuery', message: `Query parameter 'since' not found at ${at(query, '@since')}` }),
    ]);
  });
});

describe('100,000 rows', () => {
  const COUNT = 100_000;
  const BIG = `\`${PROJECT}.${DATASET}.big\``;
  const start = Date.parse('2025-01-01T00:00:00Z');
  const timeOf = (id: number) => new Date(start + id * 1000).toISOString();

  beforeAll(() => {
    platforms.bigquery.createTable(PROJECT, DATASET, 'big', [
      { name: 'id', type: 'INT64' },
      { name: 'email', type: 'STRING' },
      { name: 'value', type: 'NUMERIC' },
      { name: 'updated_at', type: 'TIMESTAMP' },
    ]);
  });

  // How fast the fake answers is the bench's to say (`npm run bench -- --only warehouse`), not a test's.
  test('insertRows takes them all, stored out of cursor order', () => {
    // A permutation of 0…99,999 (7,919 is prime to 100,000): stored out of cursor order.
    const rows = Array.from({ length: COUNT }, (_, index) => {
      const id = (index * 7919) % COUNT;
      return { id, email: `person${id}@example.com`, value: `${id % 1000}.25`, updated_at: timeOf(id) };
    });
    platforms.bigquery.insertRows(PROJECT, DATASET, 'big', rows);
    expect(platforms.bigquery.table(PROJECT, DATASET, 'big')!.numRows).toBe(String(COUNT));
  });

  test('a cursor read: pages of 5,000 give every row once, in cursor order', async () => {
    const query = `SELECT * FROM (SELECT id, updated_at FROM ${BIG}) AS source WHERE \`updated_at\` >= @cursor ORDER BY \`updated_at\``;
    const [job] = await client().createQueryJob({
      query,
      maximumBytesBilled: LIMIT,
      params: { cursor: BigQuery.timestamp(timeOf(0)) },
      types: { cursor: 'TIMESTAMP' },
    });

    const seen: number[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const [page, next] = await job.getQueryResults({ maxResults: 5000, pageToken, autoPaginate: false });
      expect(page.length).toBe(5000);
      seen.push(...(page as Array<{ id: number }>).map((row) => row.id));
      pages += 1;
      pageToken = (next as { pageToken?: string } | null)?.pageToken;
    } while (pageToken);
    expect(pages).toBe(20);
    expect(seen).toEqual(Array.from({ length: COUNT }, (_, id) => id));
    // The result was computed once, for the job: the pages are slices of it.
    expect(platforms.bigquery.jobs().filter((entry) => entry.sql === query)).toHaveLength(1);
    expect(platforms.bigquery.jobs().find((entry) => entry.sql === query)).toMatchObject({
      totalBytesProcessed: COUNT * 16,
      totalBytesBilled: 10 * MB,
    });
  });

  test('from a cursor half way: the later half, still in order', async () => {
    const query = `SELECT * FROM ${BIG} WHERE \`updated_at\` >= @cursor ORDER BY \`updated_at\``;
    const result = await read(query, { params: { cursor: BigQuery.timestamp(timeOf(COUNT / 2)) }, types: { cursor: 'TIMESTAMP' } });
    expect(result.pages).toBe(10);
    expect(result.rows.map((row) => row.id)).toEqual(Array.from({ length: COUNT / 2 }, (_, index) => COUNT / 2 + index));
  });
});

describe('the test API', () => {
  test('jobs() lists query jobs with their SQL, limit, bytes billed and dry-run flag; reset() brings the demo table back alone', async () => {
    const entries = platforms.bigquery.jobs();
    expect(entries.length).toBeGreaterThan(10);
    expect(entries.every((entry) => typeof entry.jobId === 'string' && typeof entry.totalBytesProcessed === 'number')).toBe(true);
    expect(entries.some((entry) => entry.dryRun) && entries.some((entry) => !entry.dryRun)).toBe(true);

    expect(() => platforms.bigquery.createTable(PROJECT, DATASET, 'events', [{ name: 'id', type: 'INT64' }])).toThrow(/Already Exists/);
    expect(() => platforms.bigquery.insertRows(PROJECT, DATASET, 'events', [{ id: 'twelve' }])).toThrow(
      /Could not convert value 'string_value: "twelve"' to integer/,
    );
    expect(() => platforms.bigquery.insertRows(PROJECT, DATASET, 'events', [{ nope: 1 }])).toThrow(/no such field: nope/);

    platforms.bigquery.insertRows(DEMO_SOURCE_TABLE.projectId, DEMO_SOURCE_TABLE.datasetId, DEMO_SOURCE_TABLE.tableId, [
      { lead_id: 'extra', updated_at: new Date().toISOString() },
    ]);
    expect(demoRows()).toHaveLength(41);
    platforms.bigquery.reset();
    expect(platforms.bigquery.jobs()).toEqual([]);
    expect(platforms.bigquery.tables()).toEqual([DEMO_SOURCE_TABLE]);
    expect(demoRows()).toHaveLength(40);
  });
});
