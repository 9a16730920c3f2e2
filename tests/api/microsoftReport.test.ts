import type { AdRow } from '@/lib/shared/connections/rows';
import { dayIn } from '@/lib/shared/connections/windows';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { PlatformError } from '@/lib/server/connectors/errors';
import { microsoftAds } from '@/lib/server/connectors/microsoft_ads';
import { countedRequestBody } from '@/lib/server/connectors/microsoft_ads/counted';
import { createMicrosoftReport, parseCsv, reportRequestBody, unzipReport } from '@/lib/server/connectors/microsoft_ads/report';
import type { Report, ReportRequest, Session } from '@/lib/server/connectors/types';
import type { AdFacts } from '@/sandbox/adData';
import { MICROSOFT_DEVELOPER_TOKEN } from '@/sandbox/microsoft_ads/accounts';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';

// Ad performance from Microsoft Advertising's Reporting API (Submit → Poll → zipped CSV), through the connector, against the sandbox.
const APP_URL = 'http://localhost:3999';
const REDIRECT_URI = `${APP_URL}/addSource`;
const DAY_MS = 86_400_000;

let platforms: FakePlatforms;
let session: Session;
let account: AdAccount;
// The connector as wired, and one that does not wait between polls.
const wired = microsoftAds.report as Report;
const report = createMicrosoftReport({ sleep: async () => undefined });
// Sandbox account 301 keeps Eastern time (TimeZone EasternTimeUSCanada).
const SANDBOX_ACCOUNT = { id: '301', name: 'Acme Shoes (Microsoft)', currency: 'USD', timeZone: 'America/New_York' };

const today = () => dayIn(SANDBOX_ACCOUNT.timeZone);
const daysAgo = (days: number) => new Date(Date.parse(`${today()}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);

async function login(): Promise<Session> {
  const oauth = microsoftAds.auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('state-microsoft-report', REDIRECT_URI));
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI);
  return microsoftAds.openSession(connection.credential);
}

async function read(request: Omit<ReportRequest, 'account'>, connector: Report = report) {
  const pages: AdRow[][] = [];
  for await (const page of connector(session, { account, ...request })) pages.push(page);
  return pages;
}
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the report to be refused');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(PlatformError);
      return error as PlatformError;
    },
  );

/** Money in whole cents, so sums compare exactly. */
const cents = (value: number) => Math.round(value * 100);
const expectedRows = (level: 'campaign' | 'ad_group' | 'ad', from: string, to: string): AdFacts[] => [
  ...platforms.adData.rowsOf('microsoft', SANDBOX_ACCOUNT, level, from, to),
];

/** A raw call of the reporting service (`Submit`, `Poll`), as Microsoft's REST API takes it. */
const reporting = (operation: 'Submit' | 'Poll', body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${process.env.MICROSOFT_ADS_REPORTING_URL}/GenerateReport/${operation}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${session.accessToken}`,
      DeveloperToken: MICROSOFT_DEVELOPER_TOKEN,
      CustomerId: '9001',
      CustomerAccountId: '301',
      'Content-Type': 'application/json',
      ...headers,
    },
    body: JSON.stringify(body),
  });
const submit = (body: unknown, headers: Record<string, string> = {}) => reporting('Submit', body, headers);
const operationError = async (response: Response) => {
  expect(response.status).toBe(400);
  const body = (await response.json()) as { Type: string; OperationErrors: Array<{ Code: number; ErrorCode: string }> };
  expect(body.Type).toBe('ApiFaultDetail');
  return body.OperationErrors[0]!;
};

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  session = await login();
  account = (await microsoftAds.listAccounts(session)).find((candidate) => candidate.id === '301')!;
  expect(account.managerId).toBe('9001');
});
afterAll(() => platforms.close());
let logged: jest.SpyInstance;
beforeEach(() => {
  platforms.adData.reset();
  // Refusals are logged by the connector; these tests provoke them on purpose.
  logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => logged.mockRestore());

test('an ad group report returns exactly the figures the sandbox generated, in the account day and time zone', async () => {
  const from = daysAgo(9);
  const to = today();
  let calls = 0;
  const pages = await read({ level: 'ad_group', from, to, onCall: () => (calls += 1) }, wired);
  const rows = pages.flat();
  const expected = expectedRows('ad_group', from, to);
  expect(rows).toHaveLength(expected.length);
  expect(rows.length).toBe(10 * 6);
  // Account/Query, Submit, Poll (Pending), Poll (Success), the download.
  expect(calls).toBe(5);

  const byKey = new Map(rows.map((row) => [`${row.date}/${row.ad_group_id}`, row]));
  for (const facts of expected) {
    const row = byKey.get(`${facts.date}/${facts.adGroupId}`)!;
    expect(row).toEqual({
      date: facts.date,
      platform: 'microsoft_ads',
      account_id: '301',
      account_name: 'Acme Shoes (Microsoft)',
      currency: 'USD',
      time_zone: 'America/New_York',
      campaign_id: facts.campaignId,
      campaign_name: facts.campaignName,
      ad_group_id: facts.adGroupId,
      ad_group_name: facts.adGroupName,
      ad_id: null,
      ad_name: null,
      impressions: facts.impressions,
      clicks: facts.clicks,
      spend: expect.any(Number),
      conversions: facts.conversions,
      conversion_value: expect.any(Number),
    });
    expect(cents(row.spend)).toBe(facts.spendMicros / 10_000);
    expect(cents(row.conversion_value)).toBe(facts.valueMicros / 10_000);
  }
  const sum = (list: number[]) => list.reduce((total, value) => total + value, 0);
  expect(sum(rows.map((row) => cents(row.spend)))).toBe(sum(expected.map((facts) => facts.spendMicros / 10_000)));
  expect(sum(rows.map((row) => row.clicks))).toBe(sum(expected.map((facts) => facts.clicks)));
});

test('an ad report over 120 days comes in pages of 1,000 with every ad, its title and its sums', async () => {
  const from = daysAgo(120);
  const to = daysAgo(1);
  const pages = await read({ level: 'ad', from, to });
  const rows = pages.flat();
  const expected = expectedRows('ad', from, to);
  expect(rows).toHaveLength(120 * 12);
  expect(pages.map((page) => page.length)).toEqual([1000, 440]);
  expect(new Set(rows.map((row) => row.ad_name))).toEqual(new Set(expected.map((facts) => facts.adName)));
  expect(rows.every((row) => row.ad_id && row.ad_group_id && row.date >= from && row.date <= to)).toBe(true);
  const sum = (list: number[]) => list.reduce((total, value) => total + value, 0);
  expect(sum(rows.map((row) => row.impressions))).toBe(sum(expected.map((facts) => facts.impressions)));
  expect(sum(rows.map((row) => cents(row.conversion_value)))).toBe(sum(expected.map((facts) => facts.valueMicros / 10_000)));
});

test('a window with no data answers no rows (Success without a download URL); a future window asks for nothing', async () => {
  expect(await read({ level: 'campaign', from: '2015-01-01', to: '2015-01-31' })).toEqual([]);
  let calls = 0;
  expect(await read({ level: 'campaign', from: daysAgo(-3), to: daysAgo(-2), onCall: () => (calls += 1) })).toEqual([]);
  expect(calls).toBe(1);
});

test('the sandbox refuses what Microsoft refuses: an unknown column, no TimePeriod, an unreachable account, a bad date', async () => {
  const body = reportRequestBody('ad', '301', daysAgo(3), daysAgo(1), 'EasternTimeUSCanada');
  const withColumns = (columns: string[]) => ({ ReportRequest: { ...body.ReportRequest, Columns: columns } });

  expect(await operationError(await submit(withColumns([...body.ReportRequest.Columns, 'Cost'])))).toMatchObject({
    Code: 100,
    ErrorCode: 'NullRequest',
  });
  // AdTitle is an ad column: an ad group report does not know it.
  const adGroup = reportRequestBody('ad_group', '301', daysAgo(3), daysAgo(1));
  expect(
    await operationError(
      await submit({ ReportRequest: { ...adGroup.ReportRequest, Columns: [...adGroup.ReportRequest.Columns, 'AdTitle'] } }),
    ),
  ).toMatchObject({ ErrorCode: 'NullRequest' });
  expect(
    await operationError(await submit(withColumns(body.ReportRequest.Columns.filter((column) => column !== 'TimePeriod')))),
  ).toMatchObject({ Code: 2015, ErrorCode: 'ReportingServiceRequiredColumnsNotSelected' });
  expect(await operationError(await submit(withColumns(['TimePeriod', 'AccountId'])))).toMatchObject({ Code: 2017 });
  expect(await operationError(await submit(body, { CustomerId: '1234' }))).toMatchObject({
    Code: 2003,
    ErrorCode: 'ReportingServiceAccountNotAuthorized',
  });
  expect(await operationError(await submit({ ReportRequest: { ...body.ReportRequest, Scope: { AccountIds: [999999] } } }))).toMatchObject({
    Code: 2035,
  });
  const badDate = {
    ReportRequest: {
      ...body.ReportRequest,
      Time: { CustomDateRangeStart: { Day: 30, Month: 2, Year: 2025 }, CustomDateRangeEnd: { Day: 1, Month: 3, Year: 2025 } },
    },
  };
  expect(await operationError(await submit(badDate))).toMatchObject({
    Code: 2009,
    ErrorCode: 'ReportingServiceInvalidCustomDateRangeStart',
  });
  const backwards = {
    ReportRequest: {
      ...body.ReportRequest,
      Time: { CustomDateRangeStart: { Day: 2, Month: 3, Year: 2025 }, CustomDateRangeEnd: { Day: 1, Month: 3, Year: 2025 } },
    },
  };
  expect(await operationError(await submit(backwards))).toMatchObject({ Code: 2011 });
  expect(
    await operationError(
      await submit({
        ReportRequest: {
          ...body.ReportRequest,
          ReturnOnlyCompleteData: true,
          Time: reportRequestBody('ad', '301', today(), today()).ReportRequest.Time,
        },
      }),
    ),
  ).toMatchObject({ Code: 2004 });
  expect(await operationError(await submit({ ReportRequest: { ...body.ReportRequest, Type: 'NoSuchReportRequest' } }))).toMatchObject({
    Code: 2002,
  });

  // The valid request is queued; an unknown id cannot be polled.
  const accepted = await submit(body);
  expect(accepted.status).toBe(200);
  expect(await accepted.json()).toEqual({ ReportRequestId: expect.any(String) });
  const poll = await reporting('Poll', { ReportRequestId: 'nope' });
  expect(await operationError(poll)).toMatchObject({ Code: 2100 });
});

test('ReportTimeZone takes only its own value set: the account spelling of Midway is refused, the report spelling and every zone we send are taken', async () => {
  const body = reportRequestBody('campaign', '301', daysAgo(3), daysAgo(1), 'EasternTimeUSCanada');
  const inZone = (zone: string) => ({
    ReportRequest: { ...body.ReportRequest, Time: { ...body.ReportRequest.Time, ReportTimeZone: zone } },
  });
  const refused = await operationError(await submit(inZone('MidwayIslandAndSamoa')));
  expect(refused).toMatchObject({
    Code: 100,
    ErrorCode: 'NullRequest',
    Details: "Requested value 'MidwayIslandAndSamoa' was not found in ReportTimeZone.",
  });
  expect((await submit(inZone('MidwayIslandandSamoa'))).status).toBe(200);
  // An account in Midway/Samoa: what our client sends is accepted.
  const midway = reportRequestBody('campaign', '301', daysAgo(3), daysAgo(1), 'MidwayIslandAndSamoa');
  expect(midway.ReportRequest.Time.ReportTimeZone).toBe('MidwayIslandandSamoa');
  expect((await submit(midway)).status).toBe(200);
});

test("the goals report has Microsoft's columns: AllConversions answers 0, AllConversionsQualified the count; no Conversions column; Goal required", async () => {
  platforms.reporting.set({ microsoft: { lagHours: 0 } });
  try {
    // Two offline conversions to goal 8001, arrived just now: the Eastern account's today.
    for (const click of ['a', 'b']) {
      platforms.conversions.record('microsoft', `301|Offline purchase|${click.repeat(32)}|now`, 'Offline purchase', {});
    }
    const body = countedRequestBody('301', daysAgo(2), today(), 'EasternTimeUSCanada');
    const withColumns = (columns: string[]) => ({ ReportRequest: { ...body.ReportRequest, Columns: columns } });
    expect(await operationError(await submit(withColumns(['TimePeriod', 'Goal', 'Conversions'])))).toMatchObject({
      Code: 100,
      ErrorCode: 'NullRequest',
      Details: "Requested value 'Conversions' was not found in GoalsAndFunnelsReportColumn.",
    });
    expect(await operationError(await submit(withColumns(['TimePeriod', 'GoalId', 'AllConversionsQualified'])))).toMatchObject({
      Code: 2015,
      Details: 'Goal',
    });

    const columns = ['TimePeriod', 'GoalId', 'Goal', 'AllConversions', 'AllConversionsQualified'];
    const submitted = await submit(withColumns(columns));
    const { ReportRequestId } = (await submitted.json()) as { ReportRequestId: string };
    let status: { Status: string; ReportDownloadUrl?: string } = { Status: 'Pending' };
    for (let poll = 0; poll < 5 && status.Status !== 'Success'; poll++) {
      status = ((await (await reporting('Poll', { ReportRequestId })).json()) as { ReportRequestStatus: typeof status })
        .ReportRequestStatus;
    }
    const zip = new Uint8Array(await (await fetch(status.ReportDownloadUrl!)).arrayBuffer());
    expect(parseCsv(unzipReport(zip)).filter((record) => record.length > 1)).toEqual([
      columns,
      [today(), '8001', 'Offline purchase', '0', '2.00'],
    ]);
  } finally {
    platforms.reporting.reset();
    platforms.conversions.reset();
  }
});

test('an account the login cannot reach is forbidden', async () => {
  const elsewhere = { ...account, managerId: '1234' };
  const error = await refusal(
    (async () => {
      for await (const page of report(session, { account: elsewhere, level: 'campaign', from: daysAgo(2), to: daysAgo(1) })) void page;
    })(),
  );
  expect(error.code).toBe('forbidden');
});

test.each([
  [500, 'retryable'],
  [503, 'retryable'],
  [429, 'rate_limited'],
] as const)('while the account fails with %i the report is %s, and reads again once it recovers', async (status, code) => {
  platforms.adData.failAccount('301', status, 60);
  const error = await refusal(read({ level: 'campaign', from: daysAgo(2), to: daysAgo(1) }));
  expect(error.code).toBe(code);
  if (status === 429) expect(error.retryAt!.getTime()).toBeGreaterThan(Date.now());
  platforms.adData.failAccount('301', status, 0);
  expect((await read({ level: 'campaign', from: daysAgo(2), to: daysAgo(1) })).flat()).toHaveLength(2 * 3);
});

// Last: it kills every Microsoft login of the sandbox.
test('a revoked login: needs_reauth, with the words to reconnect', async () => {
  platforms.revokeAll('microsoft');
  const error = await refusal(read({ level: 'ad', from: daysAgo(2), to: daysAgo(1) }));
  expect(error.code).toBe('needs_reauth');
  expect(error.message).toBe('Microsoft Advertising stopped accepting this login — reconnect.');
});
