import { metaAds } from '@/lib/server/connectors/meta_ads';
import { dayIn } from '@/lib/shared/connections/windows';
import { metaReportOptions } from '@/lib/server/connectors/meta_ads/report';
import type { ReportRequest, Session } from '@/lib/server/connectors/types';
import { type AdLevel, type AdRow, adRowKey } from '@/lib/shared/connections/rows';
import type { AdDataLevel } from '@/sandbox/adData';
import { metaSandboxAccount } from '@/sandbox/meta_ads/accounts';
import { META_PURCHASE_ACTION_TYPES } from '@/sandbox/meta_ads/report';
import { USAGE_CALLS_PER_HOUR } from '@/sandbox/meta_ads/usage';
import { type FakePlatforms, META_DEMO_TOKEN, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { refusal } from '@/tests/api/helpers/delivery';

// Ad performance from Meta's Insights API, through the connector and the sandbox: every figure the
// generator made arrives once, pages and async runs alike, one purchase is counted once although Meta
// lists it under three action types, and throttling, dead logins and outages are classified.
const APP_URL = 'http://localhost:3999';
const ACCOUNT = { id: '101', name: 'Acme Shoes (Meta)', currency: 'USD' };
const SANDBOX_ACCOUNT = metaSandboxAccount('101')!;
const LEVEL_OF: Record<AdLevel, AdDataLevel> = { campaign: 'campaign', ad_group: 'ad_group', ad: 'ad' };

let platforms: FakePlatforms;
let fetched: jest.SpyInstance;
let logged: jest.SpyInstance;
const session: Session = { accessToken: META_DEMO_TOKEN, rotated: null };
const slept: number[] = [];
const realOptions = { ...metaReportOptions };

/** A day `days` before the account's today, in its own time zone. */
function daysAgo(days: number) {
  const date = new Date(`${dayIn(SANDBOX_ACCOUNT.timeZone)}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - days);
  return date.toISOString().slice(0, 10);
}

/** What the connector must yield: the generator's figures, as AdRows. */
function expectedRows(level: AdLevel, from: string, to: string): AdRow[] {
  return [...platforms.adData.rowsOf('meta', SANDBOX_ACCOUNT, LEVEL_OF[level], from, to)].map((facts) => ({
    date: facts.date,
    platform: 'meta_ads',
    account_id: '101',
    account_name: 'Acme Shoes (Meta)',
    currency: 'USD',
    time_zone: 'America/New_York',
    campaign_id: facts.campaignId,
    campaign_name: facts.campaignName,
    ad_group_id: facts.adGroupId,
    ad_group_name: facts.adGroupName,
    ad_id: facts.adId,
    ad_name: facts.adName,
    impressions: facts.impressions,
    clicks: facts.clicks,
    spend: facts.spendMicros / 1_000_000,
    conversions: facts.conversions,
    conversion_value: facts.valueMicros / 1_000_000,
  }));
}

/** Every page a report yields, and how many platform calls it counted. */
async function read(level: AdLevel, from: string, to: string) {
  const pages: AdRow[][] = [];
  let calls = 0;
  const request: ReportRequest = { account: ACCOUNT, level, from, to, onCall: () => (calls += 1) };
  for await (const page of metaAds.report!(session, request)) pages.push(page);
  return { pages, rows: pages.flat(), calls };
}

const byKey = (rows: AdRow[]) => [...rows].sort((a, b) => adRowKey(a).localeCompare(adRowKey(b)));
const total = (rows: AdRow[], column: 'spend' | 'conversions' | 'conversion_value' | 'clicks') =>
  Math.round(rows.reduce((sum, row) => sum + row[column], 0) * 100) / 100;
/** The Graph calls made since the test began (the sandbox knob aside). */
const requests = () =>
  fetched.mock.calls
    .map(([url, init]) => `${(init as RequestInit | undefined)?.method ?? 'GET'} ${new URL(String(url)).pathname}`)
    .filter((call) => call.includes(' /meta/graph/'));

async function setUsage(percent: number) {
  const response = await fetch(`${platforms.url}/__sandbox/meta/usage`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ accountId: '101', percent }),
  });
  expect(response.status).toBe(200);
}

/** A raw Graph call, as any client would make it. */
async function graph(path: string, params: Record<string, string>) {
  const url = new URL(`${platforms.url}/meta/graph/v27.0${path}`);
  url.search = new URLSearchParams({ ...params, access_token: META_DEMO_TOKEN }).toString();
  const response = await fetch(url);
  return {
    status: response.status,
    usage: response.headers.get('x-business-use-case-usage'),
    body: (await response.json()) as Record<string, unknown> & { error?: Record<string, unknown> },
  };
}

beforeAll(async () => {
  logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  metaReportOptions.sleep = async (ms) => {
    slept.push(ms);
  };
});
beforeEach(() => {
  fetched = jest.spyOn(global, 'fetch');
  slept.length = 0;
});
afterEach(async () => {
  fetched.mockRestore();
  metaReportOptions.pageSize = realOptions.pageSize;
  platforms.adData.reset();
  await setUsage(0);
});
afterAll(async () => {
  Object.assign(metaReportOptions, realOptions);
  logged.mockRestore();
  await platforms.close();
});

describe('reading a window', () => {
  test('7 days at campaign level: exactly the generator’s figures, one page, one purchase counted once', async () => {
    const from = daysAgo(7);
    const to = daysAgo(1);
    const { rows, pages, calls } = await read('campaign', from, to);
    const expected = expectedRows('campaign', from, to);
    expect(expected).toHaveLength(7 * 3);
    expect(byKey(rows)).toEqual(byKey(expected));
    expect(total(rows, 'spend')).toBe(total(expected, 'spend'));
    expect(total(rows, 'conversions')).toBe(total(expected, 'conversions'));
    expect(total(rows, 'conversion_value')).toBe(total(expected, 'conversion_value'));
    expect(pages).toHaveLength(1);
    // The account's settings, then one page of insights.
    expect(calls).toBe(2);
    expect(requests()).toEqual(['GET /meta/graph/v27.0/act_101', 'GET /meta/graph/v27.0/act_101/insights']);
    expect(slept).toEqual([]);
  });

  test('90 days at ad-set level go through an async report run and still match', async () => {
    const from = daysAgo(90);
    const to = daysAgo(1);
    const { rows, calls } = await read('ad_group', from, to);
    const expected = expectedRows('ad_group', from, to);
    expect(expected).toHaveLength(90 * 6);
    expect(byKey(rows)).toEqual(byKey(expected));
    expect(total(rows, 'spend')).toBe(total(expected, 'spend'));
    const made = requests();
    expect(made.slice(0, 2)).toEqual(['GET /meta/graph/v27.0/act_101', 'POST /meta/graph/v27.0/act_101/insights']);
    const runPolls = made.filter((call) => /^GET \/meta\/graph\/v27\.0\/\d+$/.test(call));
    expect(runPolls).toHaveLength(2);
    expect(made.filter((call) => /^GET \/meta\/graph\/v27\.0\/\d+\/insights$/.test(call))).toHaveLength(2);
    expect(made.some((call) => call === 'GET /meta/graph/v27.0/act_101/insights')).toBe(false);
    expect(calls).toBe(made.length);
    // Polling backs off (and waits through the injected sleep, not for real).
    expect(slept).toEqual([500, 1000]);
  });

  test('paging across pages yields every row once', async () => {
    metaReportOptions.pageSize = 50;
    const from = daysAgo(30);
    const to = daysAgo(1);
    const { rows, pages } = await read('ad', from, to);
    const expected = expectedRows('ad', from, to);
    expect(expected).toHaveLength(30 * 12);
    expect(pages.map((page) => page.length)).toEqual([50, 50, 50, 50, 50, 50, 50, 10]);
    expect(new Set(rows.map(adRowKey)).size).toBe(rows.length);
    expect(byKey(rows)).toEqual(byKey(expected));
  });

  test('a window Meta calls too big for a sync read starts over as an async run', async () => {
    platforms.adData.configure({ campaigns: 50 });
    const from = daysAgo(31);
    const to = daysAgo(1);
    const { rows } = await read('ad', from, to);
    expect(rows).toHaveLength(31 * 200);
    expect(byKey(rows)).toEqual(byKey(expectedRows('ad', from, to)));
    expect(requests().slice(0, 3)).toEqual([
      'GET /meta/graph/v27.0/act_101',
      'GET /meta/graph/v27.0/act_101/insights',
      'POST /meta/graph/v27.0/act_101/insights',
    ]);
  });
});

describe('throttling and failures', () => {
  test('usage at 96 % stops the report with a retry time before it reads insights', async () => {
    await setUsage(96);
    const before = Date.now();
    const error = await refusal(read('campaign', daysAgo(7), daysAgo(1)));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAt).toBeInstanceOf(Date);
    expect(error.retryAt!.getTime()).toBeGreaterThan(before + 60_000);
    expect(requests()).toEqual(['GET /meta/graph/v27.0/act_101']);
  });

  test('usage at 85 % slows the report down in proportion, and it still finishes', async () => {
    await setUsage(85);
    const { rows } = await read('campaign', daysAgo(3), daysAgo(1));
    expect(rows).toHaveLength(9);
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThan(9_000);
    expect(slept[0]).toBeLessThan(11_000);
  });

  test('past 100 % Meta refuses with code 80000 and a regain time: rate_limited at that time', async () => {
    await setUsage(110);
    const { status, body, usage } = await graph('/act_101/insights', {
      level: 'campaign',
      time_range: JSON.stringify({ since: daysAgo(2), until: daysAgo(1) }),
    });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 80000, error_subcode: 2446079, type: 'OAuthException' });
    expect(String(body.error?.message)).toContain('There have been too many calls from this ad-account');
    const entry = (JSON.parse(usage!) as Record<string, Array<Record<string, number>>>)['101']![0]!;
    expect(entry.call_count).toBeGreaterThanOrEqual(100);
    expect(entry.estimated_time_to_regain_access).toBeGreaterThan(0);

    const before = Date.now();
    const error = await refusal(read('campaign', daysAgo(7), daysAgo(1)));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAt!.getTime()).toBeGreaterThanOrEqual(before + entry.estimated_time_to_regain_access! * 60_000 - 1000);
  });

  test('an account failing with 500 is retryable; throttled by Meta (429) is rate_limited', async () => {
    platforms.adData.failAccount('101', 500, 60);
    expect((await refusal(read('campaign', daysAgo(7), daysAgo(1)))).code).toBe('retryable');
    platforms.adData.failAccount('101', 429, 60);
    const throttled = await refusal(read('campaign', daysAgo(7), daysAgo(1)));
    expect(throttled.code).toBe('rate_limited');
    expect(throttled.retryAt).toBeInstanceOf(Date);
  });
});

describe('the sandbox speaks Insights', () => {
  const range = () => JSON.stringify({ since: daysAgo(2), until: daysAgo(1) });

  test('the account answers its settings, with the usage header', async () => {
    const { status, body, usage } = await graph('/act_102', { fields: 'name,currency,timezone_name,account_id' });
    expect(status).toBe(200);
    expect(body).toEqual({ id: 'act_102', account_id: '102', name: 'Acme Outlet (Meta)', currency: 'USD', timezone_name: 'Europe/London' });
    expect(JSON.parse(usage!)).toEqual({
      '102': [expect.objectContaining({ type: 'ads_insights', call_count: expect.any(Number), estimated_time_to_regain_access: 0 })],
    });
  });

  test('metrics are strings, and a purchase is listed under three action types', async () => {
    const { status, body, usage } = await graph('/act_101/insights', {
      level: 'ad',
      fields: 'campaign_id,adset_id,ad_id,impressions,clicks,spend,actions,action_values',
      time_range: range(),
      time_increment: '1',
      limit: '500',
    });
    expect(status).toBe(200);
    expect(usage).toContain('ads_insights');
    const data = body.data as Array<Record<string, unknown>>;
    expect(data).toHaveLength(24);
    const bought = data.find((row) => Array.isArray(row.action_values))!;
    expect(typeof bought.spend).toBe('string');
    expect(bought.spend).toMatch(/^\d+\.\d{2}$/);
    const actions = bought.actions as Array<{ action_type: string; value: string }>;
    expect(actions.map((action) => action.action_type)).toEqual(['link_click', ...META_PURCHASE_ACTION_TYPES]);
    expect(new Set(actions.slice(1).map((action) => action.value)).size).toBe(1);
    expect(body.paging).toEqual({ cursors: { before: expect.any(String), after: expect.any(String) } });
  });

  test('bad parameters are refused with code 100 and a clear message', async () => {
    const refused = async (params: Record<string, string>, words: RegExp) => {
      const { status, body } = await graph('/act_101/insights', { level: 'campaign', time_range: range(), ...params });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 100, type: 'OAuthException' });
      expect(String(body.error?.message)).toMatch(words);
    };
    await refused({ level: 'creative' }, /level must be one of/);
    await refused({ fields: 'impressions,reach_estimate' }, /reach_estimate is not valid for fields param/);
    await refused({ time_range: '{"since":"2026-02-30","until":"2026-03-01"}' }, /time_range must be a JSON object/);
    await refused({ time_range: 'last week' }, /time_range must be a JSON object/);
    await refused({ time_range: JSON.stringify({ since: daysAgo(1), until: daysAgo(5) }) }, /since .* is after until/);
    await refused({ time_range: JSON.stringify({ since: daysAgo(38 * 31), until: daysAgo(1) }) }, /cannot be beyond 37 months/);
  });

  test('calls count towards the usage header of the account', async () => {
    const first = await graph('/act_101', { fields: 'name' });
    for (let i = 0; i < 5; i++) await graph('/act_101', { fields: 'name' });
    const last = await graph('/act_101', { fields: 'name' });
    const count = (header: string | null) => (JSON.parse(header!) as Record<string, Array<{ call_count: number }>>)['101']![0]!.call_count;
    expect(count(last.usage) - count(first.usage)).toBe(Math.round((6 * 100) / USAGE_CALLS_PER_HOUR));
  });
});

// Last: it kills every Meta login of the sandbox.
test('a revoked login needs reauth', async () => {
  platforms.revokeAll('meta');
  const error = await refusal(read('campaign', daysAgo(7), daysAgo(1)));
  expect(error.code).toBe('needs_reauth');
  expect(error.message).toBe('Meta stopped accepting this login — reconnect.');
});
