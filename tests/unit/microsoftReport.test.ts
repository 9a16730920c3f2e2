import { strToU8, zipSync } from 'fflate';
import { PlatformError } from '@/lib/server/connectors/errors';
import { createMicrosoftCounted } from '@/lib/server/connectors/microsoft_ads/counted';
import {
  adRowsOf,
  createMicrosoftReport,
  parseCsv,
  REPORT_COLUMNS,
  reportError,
  reportRequestBody,
  unzipReport,
} from '@/lib/server/connectors/microsoft_ads/report';
import { REPORT_TIME_ZONES } from '@/sandbox/microsoft_ads/report';
import type { AdRow } from '@/lib/shared/connections/rows';
import { reportTimeZoneOf, ianaTimeZone, ACCOUNT_TIME_ZONES } from '@/lib/server/connectors/microsoft_ads/timeZones';

// Microsoft Advertising reports, without a network: the request body, the CSV, the zip, the errors.
const account = { id: '301', name: 'Acme Shoes', currency: 'USD', managerId: '9001' };
// Unreadable reports and refusals are logged by the connector; these tests provoke them on purpose.
beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined));
afterEach(() => jest.restoreAllMocks());

test('one request per level: the report type, its columns, Daily CSV 2.0 without header or footer metadata', () => {
  const body = reportRequestBody('ad_group', '301', '2025-01-30', '2025-02-02', 'EasternTimeUSCanada');
  expect(body).toEqual({
    ReportRequest: {
      Type: 'AdGroupPerformanceReportRequest',
      ReportName: expect.any(String),
      Format: 'Csv',
      FormatVersion: '2.0',
      ExcludeColumnHeaders: false,
      ExcludeReportHeader: true,
      ExcludeReportFooter: true,
      ReturnOnlyCompleteData: false,
      Aggregation: 'Daily',
      Columns: [
        'TimePeriod',
        'AccountId',
        'AccountName',
        'CurrencyCode',
        'CampaignId',
        'CampaignName',
        'AdGroupId',
        'AdGroupName',
        'Impressions',
        'Clicks',
        'Spend',
        'ConversionsQualified',
        'Revenue',
      ],
      Scope: { AccountIds: [301] },
      Time: {
        CustomDateRangeStart: { Day: 30, Month: 1, Year: 2025 },
        CustomDateRangeEnd: { Day: 2, Month: 2, Year: 2025 },
        ReportTimeZone: 'EasternTimeUSCanada',
      },
    },
  });
  expect(reportRequestBody('ad', '301', '2025-01-01', '2025-01-01').ReportRequest).toMatchObject({
    Type: 'AdPerformanceReportRequest',
    Columns: REPORT_COLUMNS.ad,
  });
  expect(REPORT_COLUMNS.ad).toEqual(expect.arrayContaining(['AdId', 'AdTitle', 'AdGroupId']));
  expect(reportRequestBody('campaign', '301', '2025-01-01', '2025-01-01').ReportRequest.Type).toBe('CampaignPerformanceReportRequest');
  expect(REPORT_COLUMNS.campaign).not.toContain('AdGroupId');
  // ReportTimeZone is left out when the zone is unknown, and spelled the Reporting service's way where it differs.
  expect(reportRequestBody('ad', '301', '2025-01-01', '2025-01-01', 'Atlantis').ReportRequest.Time).not.toHaveProperty('ReportTimeZone');
  expect(reportRequestBody('ad', '301', '2025-01-01', '2025-01-01', 'IslamabadKarachiTashkent').ReportRequest.Time.ReportTimeZone).toBe(
    'IslandamabadKarachiTashkent',
  );
});

test("every account time zone is sent as a value of Microsoft's ReportTimeZone list (Midway/Samoa was refused)", () => {
  expect(reportTimeZoneOf('MidwayIslandAndSamoa')).toBe('MidwayIslandandSamoa');
  const outside = ACCOUNT_TIME_ZONES.filter((zone) => !REPORT_TIME_ZONES.includes(reportTimeZoneOf(zone)!));
  expect(outside).toEqual([]);
  // Every value of the list is reachable from some account zone.
  expect(new Set(ACCOUNT_TIME_ZONES.map(reportTimeZoneOf))).toEqual(new Set(REPORT_TIME_ZONES));
});

test('time zones: Microsoft names to IANA', () => {
  expect(ianaTimeZone('EasternTimeUSCanada')).toBe('America/New_York');
  expect(ianaTimeZone('PacificTimeUSCanadaTijuana')).toBe('America/Los_Angeles');
  expect(ianaTimeZone('GreenwichMeanTimeDublinEdinburghLisbonLondon')).toBe('Europe/London');
  expect(ianaTimeZone('Atlantis')).toBeNull();
  expect(ianaTimeZone(undefined)).toBeNull();
});

test('CSV: quoted fields with commas, doubled quotes and line breaks; CRLF; a byte order mark', () => {
  const csv = '\uFEFF"a","b,c","say ""hi"""\r\n"multi\nline",plain,\r\n\r\nlast';
  expect([...parseCsv(csv)]).toEqual([['a', 'b,c', 'say "hi"'], ['multi\nline', 'plain', ''], [''], ['last']]);
});

const AD_CSV = [
  '"TimePeriod","AccountId","AccountName","CurrencyCode","CampaignId","CampaignName","AdGroupId","AdGroupName","AdId","AdTitle","Impressions","Clicks","Spend","ConversionsQualified","Revenue"',
  '"2025-02-01","301","Acme, Shoes","USD","1001","Brand, ""Exact""","2001","Group 1","3001","Buy ""now"", today","1234","56","78.90","3.00","1000.50"',
  '"2025-02-02","301","Acme, Shoes","USD","1001","Brand, ""Exact""","2001","Group 1","3001","Ad","1,234","--","0.00","0.50",""',
].join('\r\n');

test('a CSV becomes AdRows: names with commas and quotes, decimals, "--" and thousands separators', () => {
  const rows = [...adRowsOf(AD_CSV, { level: 'ad', account, timeZone: 'America/New_York' })];
  expect(rows).toEqual<AdRow[]>([
    {
      date: '2025-02-01',
      platform: 'microsoft_ads',
      account_id: '301',
      account_name: 'Acme, Shoes',
      currency: 'USD',
      time_zone: 'America/New_York',
      campaign_id: '1001',
      campaign_name: 'Brand, "Exact"',
      ad_group_id: '2001',
      ad_group_name: 'Group 1',
      ad_id: '3001',
      ad_name: 'Buy "now", today',
      impressions: 1234,
      clicks: 56,
      spend: 78.9,
      conversions: 3,
      conversion_value: 1000.5,
    },
    expect.objectContaining({ date: '2025-02-02', impressions: 1234, clicks: 0, spend: 0, conversions: 0.5, conversion_value: 0 }),
  ]);
});

test('header metadata and the footer are skipped; a campaign report has no ad group or ad', () => {
  const csv = [
    '"Report Name: x"',
    '"Report Time: 2/1/2025"',
    '"Rows: 1"',
    '',
    '"TimePeriod","AccountId","AccountName","CurrencyCode","CampaignId","CampaignName","Impressions","Clicks","Spend","ConversionsQualified","Revenue"',
    '"2/1/2025","301","Acme","USD","1001","Brand","10","1","0.25","0.00","0.00"',
    '',
    '"©2025 Microsoft Corporation. All rights reserved. "',
  ].join('\r\n');
  const rows = [...adRowsOf(csv, { level: 'campaign', account, timeZone: 'America/New_York' })];
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    date: '2025-02-01',
    campaign_name: 'Brand',
    ad_group_id: null,
    ad_group_name: null,
    ad_id: null,
    ad_name: null,
    spend: 0.25,
  });
});

test('zip round trip: the one CSV comes back as it was zipped', () => {
  const zip = zipSync({ 'report.csv': strToU8(AD_CSV) });
  expect(unzipReport(zip)).toBe(AD_CSV);
  expect(() => unzipReport(strToU8('not a zip'))).toThrow(PlatformError);
});

test('refusals: dead login, throttling with Retry-After, unreachable account, 5xx', () => {
  const fault = (code: number) => ({ Errors: [{ Code: code, ErrorCode: 'x', Message: 'm' }] });
  expect(reportError(401, fault(109))).toMatchObject({
    code: 'needs_reauth',
    message: 'Microsoft Advertising stopped accepting this login — reconnect.',
  });
  const throttled = reportError(429, fault(117), '30');
  expect(throttled.code).toBe('rate_limited');
  expect(throttled.retryAt!.getTime()).toBeGreaterThan(Date.now() + 25_000);
  expect(reportError(400, { OperationErrors: [{ Code: 2003 }] }).code).toBe('forbidden');
  expect(reportError(500, fault(0)).code).toBe('retryable');
  expect(reportError(400, { OperationErrors: [{ Code: 2015, Message: 'Required columns.' }] }).code).toBe('invalid');
});

/** A fake Microsoft for the connector: answers by URL, counting calls. */
function fakeMicrosoft(pollStatuses: Array<{ Status: string; ReportDownloadUrl?: string | null }>, zip?: Uint8Array) {
  const calls: string[] = [];
  const respond = (status: number, body: unknown) =>
    ({
      status,
      ok: status === 200,
      headers: new Headers(),
      text: async () => JSON.stringify(body),
      arrayBuffer: async () => zip!.slice().buffer,
    }) as unknown as Response;
  const fetch = jest.fn(async (url: string | URL | Request) => {
    const href = String(url);
    calls.push(href.replace(/^https:\/\/[^/]+/, ''));
    if (href.endsWith('/Account/Query'))
      return respond(200, { Account: { Id: 301, Name: 'Acme Shoes', CurrencyCode: 'USD', TimeZone: 'EasternTimeUSCanada' } });
    if (href.endsWith('/Submit')) return respond(200, { ReportRequestId: 'r1' });
    if (href.endsWith('/Poll')) return respond(200, { ReportRequestStatus: pollStatuses.shift() });
    return respond(200, {});
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

const drain = async (pages: AsyncIterable<AdRow[]>) => {
  const all: AdRow[][] = [];
  for await (const page of pages) all.push(page);
  return all;
};
const session = { accessToken: 'token', rotated: null };

test('submit, poll while Pending, download, unzip: pages of rows, one onCall per request', async () => {
  const csv = [AD_CSV.split('\r\n')[0], ...Array.from({ length: 2500 }, () => AD_CSV.split('\r\n')[1])].join('\r\n');
  const { fetch, calls } = fakeMicrosoft(
    [{ Status: 'Pending' }, { Status: 'Success', ReportDownloadUrl: 'https://blob.example/r1.zip' }],
    zipSync({ 'r1.csv': strToU8(csv) }),
  );
  const sleep = jest.fn(async () => undefined);
  const onCall = jest.fn();
  const report = createMicrosoftReport({ fetch, sleep });
  const pages = await drain(report(session, { account, level: 'ad', from: '2025-02-01', to: '2025-02-01', onCall }));
  expect(pages.map((page) => page.length)).toEqual([1000, 1000, 500]);
  expect(calls).toEqual([
    '/CustomerManagement/v13/Account/Query',
    '/Reporting/v13/GenerateReport/Submit',
    '/Reporting/v13/GenerateReport/Poll',
    '/Reporting/v13/GenerateReport/Poll',
    '/r1.zip',
  ]);
  expect(onCall).toHaveBeenCalledTimes(5);
  expect(sleep).toHaveBeenCalledTimes(2);
});

test('Success without a download URL means no rows; Status Error is retryable with a message', async () => {
  const empty = fakeMicrosoft([{ Status: 'Success', ReportDownloadUrl: null }]);
  expect(
    await drain(
      createMicrosoftReport({ fetch: empty.fetch, sleep: async () => undefined })(session, {
        account,
        level: 'ad',
        from: '2025-02-01',
        to: '2025-02-01',
      }),
    ),
  ).toEqual([]);

  const failed = fakeMicrosoft([{ Status: 'Error' }]);
  const pages = drain(
    createMicrosoftReport({ fetch: failed.fetch, sleep: async () => undefined })(session, {
      account,
      level: 'ad',
      from: '2025-02-01',
      to: '2025-02-01',
    }),
  );
  await expect(pages).rejects.toMatchObject({ code: 'retryable', message: expect.stringMatching(/could not build the report/) });
});

test('a report still Pending past the wait limit is retryable; a future window asks for nothing', async () => {
  const pending = fakeMicrosoft(Array.from({ length: 10 }, () => ({ Status: 'Pending' })));
  const report = createMicrosoftReport({ fetch: pending.fetch, sleep: async () => undefined, pollDelaysMs: [10], maxWaitMs: 50 });
  await expect(drain(report(session, { account, level: 'ad', from: '2025-02-01', to: '2025-02-01' }))).rejects.toMatchObject({
    code: 'retryable',
  });
  expect(pending.calls.filter((call) => call.endsWith('/Poll'))).toHaveLength(5);

  const future = fakeMicrosoft([]);
  const later = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  expect(await drain(createMicrosoftReport({ fetch: future.fetch })(session, { account, level: 'ad', from: later, to: later }))).toEqual(
    [],
  );
  expect(future.calls).toEqual(['/CustomerManagement/v13/Account/Query']);
});

test("what Microsoft counted: the goals report's AllConversionsQualified (AllConversions answers 0), days ending on the account's today", async () => {
  const csv = [
    '"TimePeriod","AccountId","GoalId","Goal","AllConversionsQualified"',
    '"2026-11-14","301","8001","Offline purchase","7.50"',
    '"2026-11-14","301","8002","Qualified lead","3.00"',
  ].join('\r\n');
  const { fetch } = fakeMicrosoft(
    [{ Status: 'Success', ReportDownloadUrl: 'https://blob.example/g.zip' }],
    zipSync({ 'g.csv': strToU8(csv) }),
  );
  const counted = createMicrosoftCounted({ fetch, sleep: async () => undefined });
  // 02:00 UTC on Nov 15 is still Nov 14 for the Eastern account: the 8 days asked end there, not on Nov 15.
  const read = await counted(session, {
    account,
    targets: [{ id: '8001', name: 'Offline purchase', events: [] }],
    from: '2026-11-08',
    to: '2026-11-15',
    now: new Date('2026-11-15T02:00:00Z'),
  });
  expect(read).toEqual({
    timeZone: 'America/New_York',
    rows: [{ targetId: '8001', events: null, date: '2026-11-14', received: null, attributed: 7.5 }],
  });
  const [, init] = (fetch as unknown as jest.Mock).mock.calls.find(([url]) => String(url).endsWith('/Submit'))!;
  const request = JSON.parse(String((init as RequestInit).body)).ReportRequest;
  expect(request.Type).toBe('GoalsAndFunnelsReportRequest');
  expect(request.Columns).toEqual(['TimePeriod', 'AccountId', 'GoalId', 'Goal', 'AllConversionsQualified']);
  expect(request.Time).toEqual({
    CustomDateRangeStart: { Day: 7, Month: 11, Year: 2026 },
    CustomDateRangeEnd: { Day: 14, Month: 11, Year: 2026 },
    ReportTimeZone: 'EasternTimeUSCanada',
  });
});
