import conversionsRoute from '@/pages/api/orgs/[orgId]/conversions/index';
import previewRoute from '@/pages/api/orgs/[orgId]/conversions/preview';
import conversionRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/index';
import readRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/read';
import { sha256Hex } from '@/lib/server/sha256';
import { Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';

import { claimRead, dueReads, saveReadCursor } from '@/lib/server/repos/reads';
import { platformsEnv, SANDBOX_MIXPANEL, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { connectWarehouse } from '@/tests/api/helpers/connections';
import { type ConversionSetup, bigqueryTableSource, setUpConversion } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { listDeliveries } from '@/lib/server/repos/deliveryLog';

// BigQuery and Mixpanel as conversion sources, through the routes: the dry-run checks (one SELECT,
// columns that exist, a cursor), the preview (hashed as it will be sent), Read now, another tenant.
let s: Record<'list' | 'item' | 'preview' | 'read', TestServer>;
let platforms: FakePlatforms;
let setup: ConversionSetup;
let other: ConversionSetup;
let bigqueryId: string;
let mixpanelId: string;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ list: conversionsRoute, item: conversionRoute, preview: previewRoute, read: readRoute });
  [setup, other] = await Promise.all([setUpConversion('meta_ads'), setUpConversion('meta_ads')]);
  bigqueryId = await connectWarehouse(setup.orgId, setup.owner.uid, 'bigquery', platforms.serviceAccountKey);
  mixpanelId = await connectWarehouse(setup.orgId, setup.owner.uid, 'mixpanel', '');
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const bigquerySource = (overrides: Record<string, unknown> = {}) =>
  bigqueryTableSource(bigqueryId, {
    columns: {
      eventId: 'lead_id',
      eventTime: 'updated_at',
      email: 'email',
      phone: 'phone',
      firstName: 'first_name',
      lastName: 'last_name',
      gclid: 'gclid',
      fbclid: 'fbclid',
      value: 'value',
      currency: 'currency',
    },
    ...overrides,
  });

const mixpanelSource = (overrides: Record<string, unknown> = {}) => ({
  type: 'mixpanel',
  destinationId: mixpanelId,
  events: ['Subscription Renewed'],
  columns: {
    eventId: '$insert_id',
    eventTime: 'time',
    eventName: 'event',
    email: '$email',
    externalId: 'distinct_id',
    value: 'amount',
    currency: 'currency',
  },
  schedule: { every: 'hourly' },
  ...overrides,
});

/** Previews what a draft `source` would send (the body's other fields, as `suggest`, from `extra`). */
const previewOf = (source: Record<string, unknown>, extra: Record<string, unknown> = {}, orgSetup = setup) =>
  call(s.preview, { method: 'POST', token: orgSetup.owner.token, query: { orgId: orgSetup.orgId }, body: { source, ...extra } });

const create = (source: Record<string, unknown>, orgSetup = setup) =>
  call(s.list, {
    method: 'POST',
    token: orgSetup.owner.token,
    query: { orgId: orgSetup.orgId },
    body: {
      name: 'Qualified leads',
      source,
      destination: { destinationId: orgSetup.destinationId, accountId: '101', targetId: '555000111' },
      mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'phone', 'name', 'clickIds'] },
    },
  });

type PreviewBody = {
  columns: Array<{ name: string }>;
  bytesProcessed: number | null;
  rows: Array<{
    id: string;
    problem: string | null;
    event: { user: Record<string, string>; maskedEmail?: string; time: number; value: number } | null;
  }>;
};

test('the preview maps the first 20 rows as they will be sent: identifiers hashed, the email masked, a row that makes no event named', async () => {
  const preview = await previewOf(bigquerySource());
  expect(preview.status).toBe(200);
  const body = preview.body as unknown as PreviewBody;
  expect(body.columns.map((column) => column.name)).toEqual(expect.arrayContaining(['lead_id', 'email', 'updated_at']));
  expect(body.bytesProcessed).toBeGreaterThan(0);
  expect(body.rows).toHaveLength(20);
  const withEmail = body.rows.find((row) => row.event?.maskedEmail)!;
  expect(withEmail.event!.user.email).toMatch(/^[0-9a-f]{64}$/);
  expect(withEmail.event!.maskedEmail).toMatch(/^\w\*\*\*@/);
  // Nothing in clear: no row carries an address.
  expect(JSON.stringify(body.rows)).not.toMatch(/[\w.]+@example\.com/);
  expect(body.rows.every((row) => (row.event ? row.event.time > 0 : Boolean(row.problem)))).toBe(true);
});

test('a source being set up previews too: no cursor and no event time yet give the columns and rows that say what is missing; saving it is refused', async () => {
  const draft = bigquerySource({ cursorColumn: '', columns: {} });
  const preview = await previewOf(draft);
  expect(preview.status).toBe(200);
  const body = preview.body as unknown as PreviewBody;
  expect(body.columns.map((column) => column.name)).toEqual(expect.arrayContaining(['lead_id', 'updated_at']));
  expect(body.rows).toHaveLength(20);
  expect(body.rows.every((row) => row.problem === 'No event time: map the column that holds when it happened.')).toBe(true);
  const saved = await create(draft);
  expect(saved.status).toBe(400);
  expect(saved.body.fieldErrors).toMatchObject({
    'source.cursorColumn': ['Name a column'],
    'source.columns.eventTime': ['Map the event time'],
  });

  // Mixpanel without events: the project's events of the last days, whatever their names.
  const everything = await previewOf(mixpanelSource({ events: [] }));
  expect(everything.status).toBe(200);
  const names = new Set((everything.body as unknown as PreviewBody).rows.map((row) => (row.event as { name?: string } | null)?.name));
  expect([...names].sort()).toEqual(['Subscription Renewed', 'Trial Started']);
});

test('with suggest, the empty fields are filled from the usual column names before the one billed query, and the rows mapped with them', async () => {
  const before = platforms.bigquery.jobs().length;
  const draft = bigquerySource({ cursorColumn: '', columns: { eventTime: 'updated_at', email: 'email' } });
  const preview = await previewOf(draft, { suggest: true });
  expect(preview.status).toBe(200);
  const body = preview.body as unknown as PreviewBody & { mapping: { columns: Record<string, string>; cursorColumn: string } };
  // What was given stays; the empty fields take columns of their usual names.
  expect(body.mapping).toEqual({
    columns: expect.objectContaining({
      eventTime: 'updated_at',
      email: 'email',
      eventId: 'lead_id',
      gclid: 'gclid',
      value: 'value',
      currency: 'currency',
    }),
    cursorColumn: 'updated_at',
  });
  expect(body.rows.find((row) => row.id === 'lead_0001')).toBeDefined();
  // One dry run (free) and one query, not a second preview.
  const jobs = platforms.bigquery.jobs().slice(before);
  expect(jobs.map((job) => job.dryRun)).toEqual([true, false]);
  // Without suggest, nothing is filled.
  const plain = await previewOf(draft);
  expect((plain.body as unknown as { mapping: { columns: Record<string, string>; cursorColumn: string } }).mapping).toEqual({
    columns: { eventTime: 'updated_at', email: 'email' },
    cursorColumn: '',
  });
});

test('a column that does not exist, a cursor that cannot order, a statement that is no SELECT → 400 naming the field; nothing created', async () => {
  const before = await call(s.list, { token: setup.owner.token, query: { orgId: setup.orgId } });
  const missing = await create(bigquerySource({ columns: { eventTime: 'updated_at', email: 'emial' } }));
  expect(missing.status).toBe(400);
  expect(missing.body.fieldErrors).toEqual({
    'source.columns.email': [expect.stringMatching(/^No column "emial" for email\. The columns are: lead_id, email/)],
  });
  const cursor = await create(bigquerySource({ cursorColumn: 'updated' }));
  expect(cursor.body.fieldErrors).toHaveProperty(['source.cursorColumn']);
  const notSelect = await create(bigquerySource({ mode: 'sql', sql: 'DELETE FROM `acme-warehouse.crm.qualified_leads` WHERE TRUE' }));
  expect(notSelect.status).toBe(400);
  expect(notSelect.body.fieldErrors).toEqual({ 'source.sql': ['Only a SELECT statement can be read'] });
  const badTable = await create(bigquerySource({ table: 'acme-warehouse.crm.nope' }));
  expect(badTable.status).toBe(400);
  expect((badTable.body.fieldErrors as Record<string, string[]>)['source.table']![0]).toMatch(/BigQuery could not run the query: .*nope/);
  const after = await call(s.list, { token: setup.owner.token, query: { orgId: setup.orgId } });
  expect((after.body.conversions as unknown[]).length).toBe((before.body.conversions as unknown[]).length);
});

test('a SELECT of the user’s own is read through a subquery; its columns are the ones to map', async () => {
  // Its last line is a comment: the subquery the read wraps it in still closes.
  const sql =
    'SELECT lead_id, email, value, currency, updated_at\nFROM `acme-warehouse.crm.qualified_leads`\nWHERE stage = "won" -- closed deals only';
  const preview = await previewOf(
    bigquerySource({
      mode: 'sql',
      sql,
      columns: { eventId: 'lead_id', eventTime: 'updated_at', email: 'email', value: 'value', currency: 'currency' },
    }),
  );
  expect(preview.status).toBe(200);
  expect((preview.body as unknown as PreviewBody).columns.map((column) => column.name)).toEqual([
    'lead_id',
    'email',
    'value',
    'currency',
    'updated_at',
  ]);
  expect((preview.body as unknown as PreviewBody).rows.length).toBeGreaterThan(0);
  const missing = await create(bigquerySource({ mode: 'sql', sql, columns: { eventTime: 'updated_at', gclid: 'gclid' } }));
  expect(missing.body.fieldErrors).toHaveProperty(['source.columns.gclid']);
});

test('create → detail shows the read; Read now makes it due; paused → 400; another organization → 404', async () => {
  const created = await create(bigquerySource());
  expect(created.status).toBe(200);
  const conversion = created.body.conversion as { id: string; read: { nextReadAt: string | null; cursor: string | null } };
  expect(conversion.read.cursor).toBeNull();
  expect(Date.parse(conversion.read.nextReadAt!)).toBeLessThanOrEqual(Date.now());

  const read = await call(s.read, { method: 'POST', token: setup.owner.token, query: { orgId: setup.orgId, id: conversion.id } });
  expect(read.status).toBe(200);
  const stranger = await call(s.read, { method: 'POST', token: other.owner.token, query: { orgId: other.orgId, id: conversion.id } });
  expect(stranger.status).toBe(404);
  const foreignOrg = await call(s.read, { method: 'POST', token: other.owner.token, query: { orgId: setup.orgId, id: conversion.id } });
  expect(foreignOrg.status).toBe(404);

  await call(s.item, {
    method: 'PATCH',
    token: setup.owner.token,
    query: { orgId: setup.orgId, id: conversion.id },
    body: { status: 'paused' },
  });
  const paused = await call(s.read, { method: 'POST', token: setup.owner.token, query: { orgId: setup.orgId, id: conversion.id } });
  expect(paused.status).toBe(400);
  expect(paused.body.message).toBe('Resume the conversion first: a paused conversion is not read.');
});

test('another organization’s BigQuery destination cannot be read from, nor previewed', async () => {
  const foreign = await create(bigquerySource(), other);
  expect(foreign.status).toBe(404);
  const preview = await previewOf(bigquerySource(), {}, other);
  expect(preview.status).toBe(404);
});

test('editing what a conversion reads restarts its read, and a read of the old source under way can no longer save; a source of another kind is refused', async () => {
  const created = await create(bigquerySource());
  const id = (created.body.conversion as { id: string }).id;
  // A read under way, which has saved a cursor.
  const claim = await claimRead(setup.orgId, id, 60_000);
  expect(claim).not.toBeNull();
  expect(await saveReadCursor(setup.orgId, id, claim!.token, { value: '2025-01-01T00:00:00Z', ids: ['lead_0001'] }, 60_000)).toBe(true);
  const restarted = await call(s.item, {
    method: 'PATCH',
    token: setup.owner.token,
    query: { orgId: setup.orgId, id },
    body: { source: bigquerySource({ cursorColumn: 'lead_id' }) },
  });
  expect(restarted.status).toBe(200);
  const read = (restarted.body.conversion as { read: { cursor: string | null; nextReadAt: string } }).read;
  expect(read.cursor).toBeNull();
  expect(Date.parse(read.nextReadAt)).toBeLessThanOrEqual(Date.now());
  // The old read's next save finds its lease gone: it can neither put the old column's cursor back nor
  // log its page's rows that made no event (the new read will log them once).
  const notSent = [{ id: 'lead_0002', status: 'not_sent' as const, reason: 'No event time' }];
  expect(await saveReadCursor(setup.orgId, id, claim!.token, { value: '2025-01-02T00:00:00Z', ids: ['lead_0002'] }, 60_000, notSent)).toBe(
    false,
  );
  expect(await listDeliveries(setup.orgId, id)).toEqual([]);
  const next = await claimRead(setup.orgId, id, 60_000);
  expect(next).not.toBeNull();
  // The lease holder's save logs them, in the same transaction as its cursor.
  expect(await saveReadCursor(setup.orgId, id, next!.token, { value: 'lead_0002', ids: ['lead_0002'] }, 60_000, notSent)).toBe(true);
  expect(await listDeliveries(setup.orgId, id)).toEqual([
    expect.objectContaining({ counts: expect.objectContaining({ not_sent: 1 }), rows: notSent }),
  ]);
  const changed = await call(s.item, {
    method: 'PATCH',
    token: setup.owner.token,
    query: { orgId: setup.orgId, id },
    body: { source: bigquerySource({ maximumBytesBilled: 2_000_000_000 }) },
  });
  expect(changed.status).toBe(200);
  expect((changed.body.conversion as { source: { maximumBytesBilled: number } }).source.maximumBytesBilled).toBe(2_000_000_000);
  const otherKind = await call(s.item, {
    method: 'PATCH',
    token: setup.owner.token,
    query: { orgId: setup.orgId, id },
    body: { source: mixpanelSource() },
  });
  expect(otherKind.status).toBe(400);
  expect(otherKind.body.fieldErrors).toHaveProperty(['source.type']);
  const badColumn = await call(s.item, {
    method: 'PATCH',
    token: setup.owner.token,
    query: { orgId: setup.orgId, id },
    body: { source: bigquerySource({ columns: { eventTime: 'updated_at', phone: 'telephone' } }) },
  });
  expect(badColumn.status).toBe(400);
  expect(badColumn.body.fieldErrors).toHaveProperty(['source.columns.phone']);
});

test('due reads: active conversions whose time has come, the longest waiting first; a paused one or one due later is not', async () => {
  const ids: string[] = [];
  for (let index = 0; index < 4; index += 1) ids.push(((await create(bigquerySource())).body.conversion as { id: string }).id);
  const [late, early, future, paused] = ids;
  const dueAt = (id: string, ms: number) =>
    adminDb()
      .doc(`organizations/${setup.orgId}/conversions/${id}`)
      .update({ 'read.due_at': Timestamp.fromMillis(ms) });
  await dueAt(late!, Date.now() - 60_000);
  await dueAt(early!, Date.now() - 3_600_000);
  await dueAt(future!, Date.now() + 3_600_000);
  await call(s.item, { method: 'PATCH', token: setup.owner.token, query: { orgId: setup.orgId, id: paused! }, body: { status: 'paused' } });
  const due = (await dueReads(new Date(), 10_000))
    .filter((read) => read.orgId === setup.orgId && ids.includes(read.id))
    .map((read) => read.id);
  expect(due).toEqual([early, late]);
});

test('an INT64 id past 2^53 keeps every digit: two orders one apart stay two events', async () => {
  platforms.bigquery.createTable('acme-warehouse', 'crm', 'big_orders', [
    { name: 'order_id', type: 'INT64' },
    { name: 'email', type: 'STRING' },
    { name: 'updated_at', type: 'TIMESTAMP' },
  ]);
  const at = new Date(Date.now() - 3600_000).toISOString();
  platforms.bigquery.insertRows('acme-warehouse', 'crm', 'big_orders', [
    { order_id: '9007199254740993', email: 'a@example.com', updated_at: at },
    { order_id: '9007199254740994', email: 'b@example.com', updated_at: at },
  ]);
  const source = bigquerySource({
    table: 'acme-warehouse.crm.big_orders',
    cursorColumn: 'updated_at',
    columns: { eventId: 'order_id', eventTime: 'updated_at', email: 'email' },
  });
  const preview = await previewOf(source);
  expect(preview.status).toBe(200);
  expect((preview.body as unknown as PreviewBody).rows.map((row) => row.id).sort()).toEqual(['9007199254740993', '9007199254740994']);
});

test('a query edited only in its comments or layout keeps its cursor; a change to what it selects starts over', async () => {
  const columns = { eventId: 'lead_id', eventTime: 'updated_at', email: 'email' };
  const sql = 'SELECT lead_id, email, updated_at FROM `acme-warehouse.crm.qualified_leads` WHERE stage = "won"';
  const created = await create(bigquerySource({ mode: 'sql', sql, columns }));
  expect(created.status).toBe(200);
  const id = (created.body.conversion as { id: string }).id;
  const claim = await claimRead(setup.orgId, id, 60_000);
  expect(await saveReadCursor(setup.orgId, id, claim!.token, { value: '2025-01-01T00:00:00Z', ids: ['lead_0001'] }, 60_000)).toBe(true);
  const edit = (newSql: string) =>
    call(s.item, {
      method: 'PATCH',
      token: setup.owner.token,
      query: { orgId: setup.orgId, id },
      body: { source: bigquerySource({ mode: 'sql', sql: newSql, columns }) },
    });
  const cursorAfter = async (newSql: string) => ((await edit(newSql)).body.conversion as { read: { cursor: string | null } }).read.cursor;

  expect(
    await cursorAfter(
      `-- won deals\nSELECT lead_id, email, updated_at\n  FROM \`acme-warehouse.crm.qualified_leads\`\n  WHERE stage = "won";`,
    ),
  ).not.toBeNull();
  expect(await cursorAfter(sql.replace('"won"', '"qualified"'))).toBeNull();
});

test('Mixpanel: the preview reads the chosen events of the project through Export, mapped and hashed', async () => {
  const preview = await previewOf(mixpanelSource());
  expect(preview.status).toBe(200);
  const body = preview.body as unknown as PreviewBody;
  expect(body.rows.length).toBeGreaterThan(0);
  expect(body.columns.map((column) => column.name)).toEqual(expect.arrayContaining(['$insert_id', '$email', 'distinct_id', 'time']));
  const first = body.rows[0]!;
  const stored = platforms.mixpanel
    .events(SANDBOX_MIXPANEL.projects.US.id, 'Subscription Renewed')
    .find((event) => event.properties.$insert_id === first.id)!;
  expect(first.event!.user).toMatchObject({
    email: sha256Hex(String(stored.properties.$email).toLowerCase()),
    externalId: sha256Hex(String(stored.properties.distinct_id)),
  });
  expect(
    body.rows.every(
      (row) =>
        row.event === null ||
        row.event.value ===
          Number(
            platforms.mixpanel.events(SANDBOX_MIXPANEL.projects.US.id).find((event) => event.properties.$insert_id === row.id)?.properties
              .amount,
          ),
    ),
  ).toBe(true);
  const created = await create(mixpanelSource());
  expect(created.status).toBe(200);
  const noEvents = await create(mixpanelSource({ events: [] }));
  expect(noEvents.body.fieldErrors).toHaveProperty(['source.events']);
});

test('a schedule the plan lacks is refused naming the plan', async () => {
  const refused = await create(bigquerySource({ schedule: { every: '15_minutes' } }));
  expect(refused.status).toBe(403);
  expect(refused.body.message).toMatch(/Every 15 minutes syncs are included in the Scale plan/);
});
