/** @jest-environment node */
import { rowToEvent, secondsOf } from '@/lib/server/delivery/warehouseRows';
import { sha256Hex } from '@/lib/server/sha256';
import { bigQuerySourceSchema } from '@/lib/shared/schemas/conversions';

// A warehouse row → the conversion event it stands for: hashing, pass-through of hashes, times in
// every shape BigQuery and Mixpanel give them, derived ids that do not change, and rows that make none.

const source = {
  columns: {
    eventId: 'lead_id',
    eventTime: 'updated_at',
    email: 'email',
    phone: 'phone',
    firstName: 'first',
    lastName: 'last',
    gclid: 'gclid',
    fbclid: 'fbclid',
    value: 'value',
    currency: 'currency',
  },
  eventName: 'Lead',
};
const row = {
  lead_id: 'L-1',
  updated_at: '2026-11-20T10:00:00.123456Z',
  email: '  Jane.Doe@Example.com ',
  phone: '+1 (650) 555-1212',
  first: 'Jane',
  last: "O'Brien",
  gclid: 'Cj0KCQ',
  fbclid: 'IwAR1',
  value: '250.50',
  currency: 'usd',
};

test('identifiers are normalised and hashed; click ids stay clear; fbclid becomes fbc', () => {
  const mapped = rowToEvent(row, source, 'bigquery:d1');
  expect(mapped).toMatchObject({
    ok: true,
    event: {
      id: 'L-1',
      name: 'Lead',
      time: Date.parse('2026-11-20T10:00:00Z') / 1000,
      value: 250.5,
      currency: 'USD',
      user: {
        email: sha256Hex('jane.doe@example.com'),
        phone: sha256Hex('16505551212'),
        firstName: sha256Hex('jane'),
        lastName: sha256Hex('obrien'),
      },
      clickIds: { gclid: 'Cj0KCQ', fbc: `fb.1.${Date.parse('2026-11-20T10:00:00Z')}.IwAR1` },
      context: { actionSource: 'system_generated' },
      maskedEmail: 'j***@example.com',
    },
  });
  expect(JSON.stringify(mapped)).not.toContain('Jane');
});

test('a column already holding SHA-256 hex is passed through (lowercased), not hashed again', () => {
  const hashed = sha256Hex('jane.doe@example.com').toUpperCase();
  const mapped = rowToEvent({ ...row, email: hashed }, source, 'bigquery:d1');
  expect(mapped.ok && mapped.event.user.email).toBe(hashed.toLowerCase());
  expect(mapped.ok && mapped.event.maskedEmail).toBeUndefined();
});

test('times: TIMESTAMP text, DATE, DATETIME, Unix seconds and milliseconds', () => {
  const noon = Date.parse('2026-11-20T12:00:00Z') / 1000;
  expect(secondsOf('2026-11-20T12:00:00Z')).toBe(noon);
  expect(secondsOf('2026-11-20 12:00:00')).toBe(noon);
  expect(secondsOf('2026-11-20T12:00:00.5')).toBe(noon);
  expect(secondsOf('2026-11-20')).toBe(noon - 12 * 3600);
  expect(secondsOf(noon)).toBe(noon);
  expect(secondsOf(noon * 1000)).toBe(noon);
  expect(secondsOf(String(noon))).toBe(noon);
  expect(secondsOf('soon')).toBeNull();
  expect(secondsOf(null)).toBeNull();
});

test('without an event id column, the id is derived from the row: the same row gives the same id, another row another', () => {
  const columns = { ...source.columns, eventId: undefined };
  const first = rowToEvent(row, { ...source, columns }, 'bigquery:d1');
  const again = rowToEvent({ ...row }, { ...source, columns }, 'bigquery:d1');
  const other = rowToEvent({ ...row, value: '99' }, { ...source, columns }, 'bigquery:d1');
  const elsewhere = rowToEvent(row, { ...source, columns }, 'bigquery:d2');
  expect(first.ok && first.event.id).toMatch(/^sb_[0-9a-f]{32}$/);
  expect(again.ok && again.event.id).toBe(first.ok && first.event.id);
  expect(other.ok && other.event.id).not.toBe(first.ok && first.event.id);
  expect(elsewhere.ok && elsewhere.event.id).not.toBe(first.ok && first.event.id);
});

test('rows that make no event say why, keeping their id', () => {
  expect(rowToEvent({ ...row, updated_at: null }, source, 's')).toEqual({
    ok: false,
    id: 'L-1',
    reason: 'No event time: the updated_at column is empty or holds no time (nothing).',
  });
  expect(rowToEvent({ ...row, value: '-5' }, source, 's')).toMatchObject({
    ok: false,
    reason: 'The value is no amount: value holds "-5".',
  });
  expect(rowToEvent({ ...row, value: 'lots' }, source, 's')).toMatchObject({
    ok: false,
    reason: 'The value is no amount: value holds text of 4 characters.',
  });
  expect(rowToEvent({ ...row, currency: 'dollars' }, source, 's')).toMatchObject({
    ok: false,
    reason: 'The currency is no three-letter code: currency holds text of 7 characters.',
  });
  // A column mapped by mistake never puts what it holds (an email, a name) into the log.
  const mistaken = rowToEvent({ ...row, updated_at: 'jane.doe@example.com', value: 'Jane Doe' }, source, 's');
  expect(mistaken).toMatchObject({
    ok: false,
    reason: 'No event time: the updated_at column is empty or holds no time (text of 20 characters).',
  });
  expect(JSON.stringify(rowToEvent({ ...row, value: 'Jane Doe' }, source, 's'))).not.toMatch(/Jane/);
  expect(rowToEvent({ ...row, lead_id: 'x'.repeat(150) }, source, 's')).toMatchObject({
    ok: false,
    reason: expect.stringMatching(/^The row makes no valid event: id /),
  });
});

test('the event name comes from its column when mapped, else the source’s', () => {
  const named = rowToEvent({ ...row, stage: 'Won' }, { ...source, columns: { ...source.columns, eventName: 'stage' } }, 's');
  expect(named.ok && named.event.name).toBe('Won');
});

test('the BigQuery source schema: a table is project.dataset.table, SQL must be a SELECT, the event time is mapped', () => {
  const base = {
    type: 'bigquery',
    destinationId: 'd1',
    projectId: 'acme',
    mode: 'table',
    table: 'acme.crm.leads',
    cursorColumn: 'updated_at',
    columns: { eventTime: 'updated_at' },
    schedule: { every: 'hourly' },
  };
  expect(bigQuerySourceSchema.safeParse(base).success).toBe(true);
  const paths = (input: object) =>
    (bigQuerySourceSchema.safeParse(input).error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  expect(paths({ ...base, table: 'leads' })).toEqual(['table: A table as project.dataset.table']);
  expect(paths({ ...base, mode: 'sql', sql: '-- a comment\nDELETE FROM t' })).toEqual(['sql: Only a SELECT statement can be read']);
  expect(paths({ ...base, mode: 'sql', sql: '/* leads */ SELECT * FROM `acme.crm.leads`' })).toEqual([]);
  expect(paths({ ...base, columns: { email: 'email' } })).toEqual(['columns.eventTime: Map the event time']);
  expect(paths({ ...base, maximumBytesBilled: 1000 })).toEqual([
    'maximumBytesBilled: At least 0.01 GB (BigQuery bills at least 10 MB a query)',
  ]);
});
