import { googleAds } from '@/lib/server/connectors/google_ads';
import { dayIn } from '@/lib/shared/connections/windows';
import { reportError } from '@/lib/server/connectors/google_ads/report';
import type { ReportRequest, Session } from '@/lib/server/connectors/types';
import type { AdLevel, AdRow } from '@/lib/shared/connections/rows';
import { adRowKey } from '@/lib/shared/connections/rows';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { type AdDataLevel, RESTATED_DAYS, type SandboxAdAccount } from '@/sandbox/adData';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { refusal } from '@/tests/api/helpers/delivery';
import { spyOnLog } from '@/tests/fixtures/logSpy';

// Ad performance from Google Ads through googleAds:searchStream, against the sandbox, whose figures
// come from the same deterministic generator the test reads (platforms.adData.rowsOf).
const APP_URL = 'http://localhost:3999';
const RETURN_TO = `${APP_URL}/addSource`;
const CLIENT: AdAccount = { id: '1234567890', name: 'Acme Shoes', managerId: '1112223334' };
const DIRECT: AdAccount = { id: '5556667778', name: 'Sandbox Direct Store', managerId: null };
const MANAGER: AdAccount = { id: '1112223334', name: 'Sandbox Agency (manager)', managerId: null, isManager: true };
/** The same accounts as the sandbox's Google keeps them (their days are their time zone's). */
const SANDBOX_ACCOUNTS: Record<string, SandboxAdAccount> = {
  [CLIENT.id]: { id: CLIENT.id, name: 'Acme Shoes', currency: 'USD', timeZone: 'America/New_York' },
  [DIRECT.id]: { id: DIRECT.id, name: 'Sandbox Direct Store', currency: 'EUR', timeZone: 'Europe/Berlin' },
};
const SANDBOX_LEVEL: Record<AdLevel, AdDataLevel> = { campaign: 'campaign', ad_group: 'ad_group', ad: 'ad' };

let platforms: FakePlatforms;
let session: Session;

/** The day `days` before `day`. */
const minusDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/** The last `days` days of an account, ending today in its time zone. */
function lastDays(account: AdAccount, days: number) {
  const today = dayIn(SANDBOX_ACCOUNTS[account.id]!.timeZone);
  return { from: minusDays(today, days - 1), to: today };
}

/** Every page a report yields, and how many requests it made. */
async function report(account: AdAccount, level: AdLevel, window: { from: string; to: string }) {
  let calls = 0;
  const request: ReportRequest = { account, level, ...window, onCall: () => (calls += 1) };
  const pages: AdRow[][] = [];
  for await (const page of googleAds.report!(session, request)) pages.push(page);
  return { pages, rows: pages.flat(), calls };
}

/** What the generator says an account reports, summed to money as the platform's micros divided by a million. */
function expected(account: AdAccount, level: AdLevel, window: { from: string; to: string }) {
  const facts = [...platforms.adData.rowsOf('google', SANDBOX_ACCOUNTS[account.id]!, SANDBOX_LEVEL[level], window.from, window.to)];
  const sum = (pick: (fact: (typeof facts)[number]) => number) => facts.reduce((total, fact) => total + pick(fact), 0);
  return {
    facts,
    totals: {
      rows: facts.length,
      impressions: sum((fact) => fact.impressions),
      clicks: sum((fact) => fact.clicks),
      spend: sum((fact) => fact.spendMicros) / 1e6,
      conversions: sum((fact) => fact.conversions),
      conversion_value: sum((fact) => fact.valueMicros) / 1e6,
    },
  };
}

function totalsOf(rows: AdRow[]) {
  const sum = (pick: (row: AdRow) => number) => rows.reduce((total, row) => total + pick(row), 0);
  return {
    rows: rows.length,
    impressions: sum((row) => row.impressions),
    clicks: sum((row) => row.clicks),
    // Summed in micros, as the generator sums them: no floating-point drift over many rows.
    spend: Math.round(sum((row) => Math.round(row.spend * 1e6))) / 1e6,
    conversions: sum((row) => row.conversions),
    conversion_value: Math.round(sum((row) => Math.round(row.conversion_value * 1e6))) / 1e6,
  };
}

/** A raw searchStream request, for what our connector never sends. */
async function searchStream(customerId: string, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${process.env.GOOGLE_ADS_API_URL}/v26/customers/${customerId}/googleAds:searchStream`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${session.accessToken}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const queryErrorOf = (body: Record<string, unknown>) => JSON.stringify(body).match(/"queryError":"(\w+)"/)?.[1];

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  const auth = googleAds.auth.oauth!;
  const returned = await consentTo(auth.authorizeUrl('state-google-report', RETURN_TO));
  const connection = await auth.exchangeCode(returned.searchParams.get('code')!, RETURN_TO);
  session = await googleAds.openSession(connection.credential);
});
afterAll(async () => {
  await platforms.close();
});
afterEach(() => {
  platforms.adData.reset();
});

test('a client read through its manager reports exactly the generator’s figures, in one request', async () => {
  const window = lastDays(CLIENT, 30);
  const { rows, calls } = await report(CLIENT, 'campaign', window);
  const { facts, totals } = expected(CLIENT, 'campaign', window);
  expect(calls).toBe(1);
  expect(totalsOf(rows)).toEqual(totals);
  expect(rows).toHaveLength(30 * platforms.adData.shape.campaigns);
  // Row by row too: the same campaign, day and figures.
  const byKey = new Map(rows.map((row) => [`${row.campaign_id}/${row.date}`, row]));
  for (const fact of facts) {
    expect(byKey.get(`${fact.campaignId}/${fact.date}`)).toMatchObject({
      campaign_name: fact.campaignName,
      impressions: fact.impressions,
      clicks: fact.clicks,
      spend: fact.spendMicros / 1e6,
      conversions: fact.conversions,
      conversion_value: fact.valueMicros / 1e6,
    });
  }
  expect(rows[0]).toMatchObject({
    platform: 'google_ads',
    account_id: CLIENT.id,
    account_name: 'Acme Shoes',
    currency: 'USD',
    time_zone: 'America/New_York',
    ad_group_id: null,
    ad_id: null,
  });
});

test.each<AdLevel>(['ad_group', 'ad'])('at %s level every object has its own row per day, with its ids and names', async (level) => {
  const window = lastDays(DIRECT, 7);
  const { rows } = await report(DIRECT, level, window);
  const { totals } = expected(DIRECT, level, window);
  expect(totalsOf(rows)).toEqual(totals);
  expect(new Set(rows.map(adRowKey)).size).toBe(rows.length);
  expect(
    rows.every((row) => row.ad_group_id && row.ad_group_name && (level === 'ad' ? row.ad_id && row.ad_name : row.ad_id === null)),
  ).toBe(true);
  expect(rows[0]).toMatchObject({ account_id: DIRECT.id, currency: 'EUR', time_zone: 'Europe/Berlin' });
});

test('a long window streams in batches of 10,000 rows, each yielded as it comes', async () => {
  platforms.adData.configure({ campaigns: 20 });
  const window = lastDays(DIRECT, 200);
  const { pages, calls } = await report(DIRECT, 'ad', window);
  expect(calls).toBe(1);
  // 20 campaigns × 2 ad groups × 2 ads × 200 days.
  expect(pages.map((page) => page.length)).toEqual([10_000, 6_000]);
  expect(totalsOf(pages.flat())).toEqual(expected(DIRECT, 'ad', window).totals);
});

test('a client without its manager as login-customer-id is refused', async () => {
  const error = await refusal(report({ ...CLIENT, managerId: null }, 'campaign', lastDays(CLIENT, 3)));
  expect(error.code).toBe('forbidden');
  expect(error.message).toContain('login-customer-id');
  const raw = await searchStream(
    CLIENT.id,
    "SELECT campaign.id, metrics.clicks FROM campaign WHERE segments.date BETWEEN '2026-01-01' AND '2026-01-02'",
  );
  expect(raw.status).toBe(403);
  expect(JSON.stringify(raw.body)).toContain('USER_PERMISSION_DENIED');
});

test('after a restatement the last days change, and only they', async () => {
  const window = lastDays(CLIENT, 10);
  const before = (await report(CLIENT, 'campaign', window)).rows;
  platforms.adData.restate();
  const after = (await report(CLIENT, 'campaign', window)).rows;
  expect(totalsOf(after)).toEqual(expected(CLIENT, 'campaign', window).totals);
  const restatedFrom = minusDays(window.to, RESTATED_DAYS - 1);
  const figures = (rows: AdRow[], recent: boolean) =>
    rows.filter((row) => row.date >= restatedFrom === recent).map((row) => [adRowKey(row), row.impressions, row.clicks, row.spend]);
  expect(figures(after, false)).toEqual(figures(before, false));
  const changed = figures(after, true);
  expect(changed).toHaveLength(RESTATED_DAYS * platforms.adData.shape.campaigns);
  expect(changed).not.toEqual(figures(before, true));
});

test('a manager account is refused in plain words; asked anyway, Google refuses its metrics', async () => {
  const error = await refusal(report(MANAGER, 'campaign', lastDays(CLIENT, 3)));
  expect(error.code).toBe('invalid');
  expect(error.message).toMatch(/manager account.*no ads of its own/);

  const unflagged = await refusal(report({ ...MANAGER, isManager: false }, 'campaign', lastDays(CLIENT, 3)));
  expect(unflagged).toMatchObject({ code: 'invalid', message: expect.stringMatching(/no ads of its own/) });
  const raw = await searchStream(
    MANAGER.id,
    "SELECT campaign.id, metrics.clicks FROM campaign WHERE segments.date BETWEEN '2026-01-01' AND '2026-01-02'",
  );
  expect(raw.status).toBe(400);
  expect(queryErrorOf(raw.body)).toBe('REQUESTED_METRICS_FOR_MANAGER');
});

test('while Google throttles the account, rate limited until its retry delay; while it fails, retryable', async () => {
  platforms.adData.failAccount(CLIENT.id, 429, 60);
  const startedAt = Date.now();
  const throttled = await refusal(report(CLIENT, 'campaign', lastDays(CLIENT, 3)));
  expect(throttled.code).toBe('rate_limited');
  expect(throttled.retryAt).toBeInstanceOf(Date);
  // The sandbox's retry delay is when the throttling ends: in about a minute.
  expect(throttled.retryAt!.getTime()).toBeGreaterThanOrEqual(startedAt + 58_000);
  expect(throttled.retryAt!.getTime()).toBeLessThanOrEqual(Date.now() + 61_000);

  const logged = spyOnLog();
  platforms.adData.failAccount(CLIENT.id, 500, 60);
  expect((await refusal(report(CLIENT, 'campaign', lastDays(CLIENT, 3)))).code).toBe('retryable');
  expect(logged.entries).toContainEqual({
    level: 'warn',
    // Google's codes, never its words (they may quote what was sent).
    fields: { component: 'platforms', platform: 'google_ads', status: 500, codes: expect.arrayContaining(['INTERNAL']), is: 'retryable' },
    message: 'A platform refused a request',
  });
  logged.mockRestore();

  // Other accounts are not affected, and the switch off ends it.
  await expect(report(DIRECT, 'campaign', lastDays(DIRECT, 2))).resolves.toMatchObject({ calls: 1 });
  platforms.adData.failAccount(CLIENT.id, 500, 0);
  await expect(report(CLIENT, 'campaign', lastDays(CLIENT, 2))).resolves.toMatchObject({ calls: 1 });
});

test('the sandbox checks GAQL as Google does', async () => {
  const between = "WHERE segments.date BETWEEN '2026-01-01' AND '2026-01-31'";
  const cases: Array<[string, string]> = [
    [`SELECT campaign.id, metrics.cost FROM campaign ${between}`, 'UNRECOGNIZED_FIELD'],
    [`SELECT campaign.id, ad_group.name FROM campaign ${between}`, 'PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE'],
    [`SELECT ad_group.id, ad_group_ad.ad.id FROM ad_group ${between}`, 'PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE'],
    ['SELECT campaign.id, segments.date, metrics.clicks FROM campaign', 'EXPECTED_FILTERS_ON_DATE_RANGE'],
    [
      "SELECT campaign.id, segments.date FROM campaign WHERE segments.date BETWEEN '2026-02-30' AND '2026-03-01'",
      'INVALID_VALUE_WITH_BETWEEN_OPERATOR',
    ],
    ["SELECT campaign.id, segments.date FROM campaign WHERE segments.date BETWEEN '2026-03-02' AND '2026-03-01'", 'DATE_RANGE_TOO_NARROW'],
    ["SELECT campaign.id, segments.date FROM campaign WHERE segments.date BETWEEN '03/01/2026' AND '2026-03-02'", 'INVALID_DATE_FORMAT'],
    [`SELECT campaign.id FROM keyword_view ${between}`, 'BAD_RESOURCE_TYPE_IN_FROM_CLAUSE'],
    ['campaign.id FROM campaign', 'EXPECTED_SELECT'],
  ];
  for (const [query, queryError] of cases) {
    const raw = await searchStream(CLIENT.id, query, { 'login-customer-id': CLIENT.managerId! });
    expect([query, raw.status, queryErrorOf(raw.body)]).toEqual([query, 400, queryError]);
  }
  const unknown = await searchStream(CLIENT.id, `SELECT campaign.id, metrics.cost FROM campaign ${between}`, {
    'login-customer-id': CLIENT.managerId!,
  });
  expect(unknown.body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  expect(reportError(unknown.status, unknown.body)).toMatchObject({ code: 'invalid', message: expect.stringContaining("'metrics.cost'") });

  // A well-formed query answers REST's array of batches: int64 as strings, doubles as numbers, zeros left out.
  const ok = await searchStream(
    CLIENT.id,
    `SELECT customer.currency_code, campaign.name, segments.date, metrics.cost_micros, metrics.conversions_value FROM campaign ${between}`,
    {
      'login-customer-id': CLIENT.managerId!,
    },
  );
  expect(ok.status).toBe(200);
  const batches = ok.body as unknown as Array<{
    results: Array<Record<string, Record<string, unknown>>>;
    fieldMask: string;
    requestId: string;
  }>;
  expect(batches).toHaveLength(1);
  expect(batches[0]!.fieldMask).toBe('customer.currencyCode,campaign.name,segments.date,metrics.costMicros,metrics.conversionsValue');
  const [first] = batches[0]!.results;
  expect(first).toMatchObject({
    customer: { resourceName: `customers/${CLIENT.id}`, currencyCode: 'USD' },
    campaign: { resourceName: expect.stringMatching(new RegExp(`^customers/${CLIENT.id}/campaigns/\\d+$`)), name: expect.any(String) },
    segments: { date: '2026-01-01' },
    metrics: { costMicros: expect.stringMatching(/^\d+$/) },
  });
  expect(first!.campaign).not.toHaveProperty('id');
});

test('a revoked login must be connected again', async () => {
  platforms.revokeAll('google');
  const error = await refusal(report(CLIENT, 'campaign', lastDays(CLIENT, 3)));
  expect(error.code).toBe('needs_reauth');
  expect(error.message).toBe('Google Ads stopped accepting this login — reconnect.');
});
