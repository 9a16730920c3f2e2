import { classify, type ErrorTable } from '@/lib/server/connectors/errors';
import { GOOGLE_ADS_ERRORS } from '@/lib/server/connectors/google_ads/errors';
import { META_ADS_ERRORS } from '@/lib/server/connectors/meta_ads/errors';
import { MICROSOFT_ADS_ERRORS } from '@/lib/server/connectors/microsoft_ads/errors';

const TABLES = { google_ads: GOOGLE_ADS_ERRORS, meta_ads: META_ADS_ERRORS, microsoft_ads: MICROSOFT_ADS_ERRORS } as Record<
  string,
  ErrorTable<never>
>;

describe.each(Object.entries(TABLES))("%s's error table", (_, table) => {
  test('ends with a row that matches any refusal, so nothing goes unclassified', () => {
    const last = table.at(-1)!;
    expect([last.status, last.codes, last.when]).toEqual([undefined, undefined, undefined]);
    expect(last.is).toBe('invalid');
  });

  test('each row but the last names what it matches', () => {
    for (const row of table.slice(0, -1)) expect(Boolean(row.status || row.codes || row.when)).toBe(true);
  });
});

test('a row matches by a status or a code, and its condition must hold too', () => {
  const table: ErrorTable<{ status: number; codes: number[]; subcode?: number }> = [
    { status: [401], codes: [190], is: 'needs_reauth', says: 'reconnect' },
    { codes: [100], when: ({ subcode }) => subcode === 33, is: 'forbidden', says: 'no access' },
    { status: ['5xx'], is: 'retryable', says: 'later' },
    { is: 'invalid', says: ({ codes }) => `refused ${codes.join()}` },
  ];
  const kind = (status: number, codes: number[], subcode?: number) => classify('meta_ads', table, { status, codes, subcode }).code;
  expect(kind(401, [])).toBe('needs_reauth');
  expect(kind(400, [190])).toBe('needs_reauth');
  expect(kind(400, [100], 33)).toBe('forbidden');
  expect(kind(400, [100], 34)).toBe('invalid');
  expect(kind(503, [])).toBe('retryable');
  expect(classify('meta_ads', table, { status: 400, codes: [7] }).message).toBe('refused 7');
});

test('only a rate limit carries when to come back', () => {
  const at = new Date('2026-11-28T12:00:00Z');
  const table: ErrorTable = [
    { status: [429], is: 'rate_limited', says: 'slow down' },
    { is: 'invalid', says: 'no' },
  ];
  expect(classify('google_ads', table, { status: 429, codes: [] }, at).retryAt).toEqual(at);
  expect(classify('google_ads', table, { status: 400, codes: [] }, at).retryAt).toBeUndefined();
});
