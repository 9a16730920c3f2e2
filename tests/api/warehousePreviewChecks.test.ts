import previewRoute from '@/pages/api/orgs/[orgId]/conversions/preview';
import { DEMO_ANONYMOUS_LEAD } from '@/sandbox/bigquery';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { connectWarehouse } from '@/tests/api/helpers/connections';
import { type ConversionSetup, bigqueryTableSource, setUpConversion } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// The warehouse preview promises "Will be sent" only for rows the chosen destination would take: its own
// checks (Meta: the last 7 days, an identifier it can match) apply once a destination is chosen; and
// "Load the columns" fills the event time from the table's only timestamp column.
jest.setTimeout(60_000);

let s: Record<'preview', TestServer>;
let platforms: FakePlatforms;
let setup: ConversionSetup;
let other: ConversionSetup;
let bigqueryId: string;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ preview: previewRoute });
  [setup, other] = await Promise.all([setUpConversion('meta_ads'), setUpConversion('meta_ads')]);
  bigqueryId = await connectWarehouse(setup.orgId, setup.owner.uid, 'bigquery', platforms.serviceAccountKey);
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const source = (columns: Record<string, string>) => bigqueryTableSource(bigqueryId, { cursorColumn: '', columns });

type Rows = Array<{ id: string; problem: string | null; event: { time: number } | null }>;
const preview = (body: Record<string, unknown>, token = setup.owner.token, orgId = setup.orgId) =>
  call(s.preview, { method: 'POST', token, query: { orgId }, body });

test('once a Meta destination is chosen, rows older than 7 days and rows without an identifier say they will not be sent', async () => {
  const columns = { eventId: 'lead_id', eventTime: 'updated_at', email: 'email', phone: 'phone' };
  // The first 20 leads are 10 to 5 days old, one of them with no email or phone.
  const plain = await preview({ source: source(columns) });
  expect(plain.status).toBe(200);
  const plainRows = plain.body.rows as Rows;
  const weekAgo = Date.now() / 1000 - 7 * 86_400;
  const old = plainRows.filter((row) => row.event && row.event.time < weekAgo - 3600);
  expect(old.length).toBeGreaterThan(0);

  const checked = await preview({ source: source(columns), sendsTo: setup.destinationId });
  expect(checked.status).toBe(200);
  const rows = checked.body.rows as Rows;
  for (const row of old) {
    expect(rows.find((candidate) => candidate.id === row.id)).toMatchObject({ event: null, problem: expect.stringMatching(/last 7 days/) });
  }
  expect(rows.find((row) => row.id === DEMO_ANONYMOUS_LEAD)).toMatchObject({
    event: null,
    problem: expect.stringMatching(/No identifier/),
  });
  // A recent row with an email still will be sent.
  expect(rows.some((row) => row.event !== null && row.problem === null)).toBe(true);
});

test('"Load the columns" fills the event time from the table’s only timestamp column', async () => {
  const loaded = await preview({ source: source({}), suggest: true });
  expect(loaded.status).toBe(200);
  expect((loaded.body.mapping as { columns: Record<string, string> }).columns.eventTime).toBe('updated_at');
  expect((loaded.body.rows as Rows).filter((row) => row.event).length).toBeGreaterThan(0);
});

test('another organization’s destination is not found, and a malformed one is a 400', async () => {
  const foreign = await preview({ source: source({ eventTime: 'updated_at' }), sendsTo: other.destinationId });
  expect(foreign.status).toBe(404);
  const malformed = await preview({ source: source({ eventTime: 'updated_at' }), sendsTo: 'a/b' });
  expect(malformed.status).toBe(400);
});
