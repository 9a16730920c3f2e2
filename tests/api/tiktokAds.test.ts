import { createHash } from 'node:crypto';
import { PlatformError } from '@/lib/server/connectors/errors';
import { tiktokAds, type TikTokCredential } from '@/lib/server/connectors/tiktok_ads';
import { toTikTokEvent } from '@/lib/server/connectors/tiktok_ads/delivery';
import type { Session } from '@/lib/server/connectors/types';
import type { AdRow } from '@/lib/shared/connections/rows';
import { dayIn } from '@/lib/shared/connections/windows';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { knownHash } from '@/sandbox/matching';
import { KNOWN_PEOPLE } from '@/sandbox/people';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';

// TikTok through the sandbox, as a marketer meets it: consent → advertisers and pixels → a report read in 30-day
// windows, page by page → conversions through the Events API 2.0, each refused where TikTok documents a refusal.
const APP_URL = 'http://localhost:3999';
const REDIRECT_URI = `${APP_URL}/addSource`;
const DAY_MS = 86_400_000;
const ADVERTISER = { id: '7100000000000000001', name: 'Acme Shoes (TikTok)', currency: 'USD', timeZone: 'America/Los_Angeles' };
const PIXEL = { id: 'CSBXSHOES0PIXEL00001', name: 'Acme Shoes Pixel' };

let platforms: FakePlatforms;
let session: Session;
let credential: TikTokCredential;
const account: AdAccount = { id: ADVERTISER.id, name: ADVERTISER.name, currency: 'USD' };

const today = () => dayIn(ADVERTISER.timeZone);
const daysAgo = (days: number) => new Date(Date.parse(`${today()}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);
const cents = (value: number) => Math.round(value * 100);
const nowSeconds = () => Math.floor(Date.now() / 1000);

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(PlatformError);
      return error as PlatformError;
    },
  );

/** A raw call of the fake's API, as TikTok takes it. */
const api = (path: string, init: RequestInit = {}) =>
  fetch(`${process.env.TIKTOK_BUSINESS_API_URL}/open_api/v1.3${path}`, init).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as { code: number; message: string; data: Record<string, unknown> },
  }));

function event(n: number, person = KNOWN_PEOPLE[n]!, overrides: Partial<ConversionEvent> = {}): ConversionEvent {
  return {
    id: `tiktok-test-${n}`,
    name: 'CompletePayment',
    time: nowSeconds() - 600,
    value: 25,
    currency: 'USD',
    user: { email: knownHash('tiktok', 'email', person.id)!, phoneE164: knownHash('tiktok', 'phone', person.id)! },
    clickIds: { ttclid: `E.C.P.test${n}`, ttp: `ttp-${n}` },
    context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (test)', pageUrl: 'https://shop.example.com/thanks', actionSource: 'website' },
    ...overrides,
  };
}

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  const oauth = tiktokAds.auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('state-tiktok', REDIRECT_URI));
  // TikTok returns the code as auth_code (and code).
  expect(returned.searchParams.get('auth_code')).toBe(returned.searchParams.get('code'));
  const connection = await oauth.exchangeCode(returned.searchParams.get('auth_code')!, REDIRECT_URI);
  expect(connection.accountName).toBe('Sandbox Marketer');
  credential = connection.credential;
  session = await tiktokAds.openSession(credential);
});
afterAll(() => platforms.close());
let logged: jest.SpyInstance;
beforeEach(() => {
  platforms.adData.reset();
  platforms.conversions.reset();
  platforms.matches.reset();
  logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => logged.mockRestore());

test('the consent reaches the advertisers, with their currencies, and each advertiser’s pixels by pixel code', async () => {
  expect(await tiktokAds.listAccounts(session)).toEqual([
    { id: '7100000000000000001', name: 'Acme Shoes (TikTok)', currency: 'USD' },
    { id: '7100000000000000002', name: 'Acme Outlet (TikTok)', currency: 'EUR' },
  ]);
  expect(await tiktokAds.listTargets(session, account)).toEqual([PIXEL]);
});

test('an auth code is good once: a second exchange is refused in TikTok’s words', async () => {
  const oauth = tiktokAds.auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('state-tiktok-2', REDIRECT_URI));
  const code = returned.searchParams.get('auth_code')!;
  await oauth.exchangeCode(code, REDIRECT_URI);
  const error = await refusal(oauth.exchangeCode(code, REDIRECT_URI));
  expect(error.code).toBe('invalid');
  expect(error.message).toMatch(/auth_code is invalid/);
});

test('65 days at ad group level read in 30-day windows equal the sandbox’s figures, in the advertiser’s days', async () => {
  const from = daysAgo(64);
  const to = today();
  let calls = 0;
  const rows: AdRow[] = [];
  for await (const page of tiktokAds.report!(session, { account, level: 'ad_group', from, to, onCall: () => (calls += 1) }))
    rows.push(...page);
  const expected = [...platforms.adData.rowsOf('tiktok', ADVERTISER, 'ad_group', from, to)];
  expect(rows).toHaveLength(expected.length);
  expect(rows.length).toBe(65 * 6);
  // advertiser/info, then one page for each of the three windows (30 + 30 + 5 days).
  expect(calls).toBe(4);
  const byKey = new Map(rows.map((row) => [`${row.date}/${row.ad_group_id}`, row]));
  for (const facts of expected) {
    const row = byKey.get(`${facts.date}/${facts.adGroupId}`)!;
    expect({ ...row, spend: cents(row.spend), conversion_value: cents(row.conversion_value) }).toEqual({
      date: facts.date,
      platform: 'tiktok_ads',
      account_id: ADVERTISER.id,
      account_name: ADVERTISER.name,
      currency: 'USD',
      time_zone: 'America/Los_Angeles',
      campaign_id: facts.campaignId,
      campaign_name: facts.campaignName,
      ad_group_id: facts.adGroupId,
      ad_group_name: facts.adGroupName,
      ad_id: null,
      ad_name: null,
      impressions: facts.impressions,
      clicks: facts.clicks,
      spend: facts.spendMicros / 10_000,
      conversions: facts.conversions,
      conversion_value: facts.valueMicros / 10_000,
    });
  }
});

test('a window of more ads than one page holds is read page by page', async () => {
  platforms.adData.configure({ campaigns: 20, adGroupsPerCampaign: 5, adsPerAdGroup: 2 });
  let calls = 0;
  const pages: AdRow[][] = [];
  const from = daysAgo(9);
  for await (const page of tiktokAds.report!(session, { account, level: 'ad', from, to: today(), onCall: () => (calls += 1) }))
    pages.push(page);
  // 200 ads × 10 days = 2,000 rows: two pages of 1,000.
  expect(pages.map((page) => page.length)).toEqual([1000, 1000]);
  expect(calls).toBe(3);
  expect(new Set(pages.flat().map((row) => `${row.date}/${row.ad_id}`)).size).toBe(2000);
});

test('the fake refuses what TikTok refuses: over 30 days daily, pages over 1,000, no Access-Token, a Bearer header', async () => {
  const headers = { 'Access-Token': session.accessToken };
  const query = (extra: Record<string, string>) =>
    new URLSearchParams({
      advertiser_id: ADVERTISER.id,
      report_type: 'BASIC',
      data_level: 'AUCTION_CAMPAIGN',
      dimensions: JSON.stringify(['campaign_id', 'stat_time_day']),
      metrics: JSON.stringify(['spend']),
      start_date: daysAgo(30),
      end_date: today(),
      ...extra,
    }).toString();
  const tooLong = await api(`/report/integrated/get/?${query({})}`, { headers });
  expect(tooLong).toMatchObject({ status: 200, body: { code: 40002, message: expect.stringMatching(/cannot exceed 30 days/) } });
  const bigPage = await api(`/report/integrated/get/?${query({ start_date: daysAgo(29), page_size: '1001' })}`, { headers });
  expect(bigPage.body).toMatchObject({ code: 40002, message: expect.stringMatching(/page_size/) });
  const tooManyIds = JSON.stringify([
    { field_name: 'campaign_ids', filter_type: 'IN', filter_value: JSON.stringify(Array.from({ length: 101 }, (_, i) => String(i))) },
  ]);
  expect((await api(`/report/integrated/get/?${query({ start_date: daysAgo(29), filtering: tooManyIds })}`, { headers })).body.code).toBe(
    40002,
  );
  expect((await api(`/report/integrated/get/?${query({ start_date: daysAgo(29) })}`)).body.code).toBe(40104);
  const bearer = await api(`/report/integrated/get/?${query({ start_date: daysAgo(29) })}`, {
    headers: { Authorization: `Bearer ${session.accessToken}` },
  });
  expect(bearer.body.code).toBe(40104);
  expect((await api(`/report/integrated/get/?${query({ start_date: daysAgo(29) })}`, { headers })).body.code).toBe(0);
});

test('conversions reach the pixel in TikTok’s forms, deduplicated by pixel, event and event id, and match the people they name', async () => {
  const events = [0, 1, 2].map((n) => event(n));
  const outcomes = await tiktokAds.deliver!.send(session, account, PIXEL, events);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['delivered', 'delivered', 'delivered']);
  await tiktokAds.deliver!.send(session, account, PIXEL, [events[0]!]);
  const received = platforms.conversions.list('tiktok');
  expect(received).toHaveLength(3);
  expect(received.find((entry) => entry.key === `${PIXEL.id}|CompletePayment|tiktok-test-0`)?.receipts).toBe(2);
  expect(received[1]!.event).toEqual({
    event: 'CompletePayment',
    event_time: events[1]!.time,
    event_id: 'tiktok-test-1',
    user: {
      email: events[1]!.user.email,
      phone: events[1]!.user.phoneE164,
      ttclid: 'E.C.P.test1',
      ttp: 'ttp-1',
      ip: '203.0.113.7',
      user_agent: 'Mozilla/5.0 (test)',
    },
    properties: { value: 25, currency: 'USD' },
    page: { url: 'https://shop.example.com/thanks' },
  });
  const matched = platforms.matches.total('tiktok', PIXEL.id);
  expect({ events: matched.events, matched: matched.matched, unmatched: matched.unmatched }).toEqual({
    events: 4,
    matched: 4,
    unmatched: 0,
  });
});

test('a phone hashed in Meta’s form (no +) matches nobody at TikTok', async () => {
  const person = KNOWN_PEOPLE[5]!;
  const metaPhone = knownHash('meta', 'ph', person.id)!;
  await tiktokAds.deliver!.send(session, account, PIXEL, [event(5, person, { user: { phoneE164: metaPhone } })]);
  expect(platforms.matches.total('tiktok', PIXEL.id).keys.phone).toEqual({ sent: 1, matched: 0 });
});

test('a test event code keeps test events apart from the pixel’s real ones', async () => {
  await tiktokAds.deliver!.send(session, account, PIXEL, [event(7)], { testCode: 'TEST12345' });
  const [received] = platforms.conversions.list('tiktok');
  expect(received).toMatchObject({ target: `test:${PIXEL.id}`, event: { test_event_code: 'TEST12345' } });
});

test('without stat_time_day the fake sums the range: one row per campaign, equal to the days’ sum', async () => {
  const from = daysAgo(6);
  const to = daysAgo(1);
  const query = new URLSearchParams({
    advertiser_id: ADVERTISER.id,
    report_type: 'BASIC',
    data_level: 'AUCTION_CAMPAIGN',
    dimensions: JSON.stringify(['campaign_id']),
    metrics: JSON.stringify(['clicks']),
    start_date: from,
    end_date: to,
  }).toString();
  const { body } = await api(`/report/integrated/get/?${query}`, { headers: { 'Access-Token': session.accessToken } });
  const clicks = new Map<string, number>();
  for (const facts of platforms.adData.rowsOf('tiktok', ADVERTISER, 'campaign', from, to))
    clicks.set(facts.campaignId, (clicks.get(facts.campaignId) ?? 0) + facts.clicks);
  const list = body.data.list as Array<{ dimensions: { campaign_id: string }; metrics: { clicks: string } }>;
  expect(list.map((row) => [row.dimensions.campaign_id, Number(row.metrics.clicks)])).toEqual([...clicks.entries()]);
});

test('counted: the report by event gives what TikTok attributed per day of the advertiser, for the names each target sends; nothing as received', async () => {
  const stranger = { user: { email: createHash('sha256').update('nobody-at-tiktok@example.com').digest('hex') }, clickIds: {} };
  await tiktokAds.deliver!.send(session, account, PIXEL, [
    // Two payments with an ad click, one from a known person without one: all attributable.
    event(20),
    event(21),
    event(22, undefined, { clickIds: {} }),
    // A stranger's payment with no click: accepted, never attributed.
    event(23, undefined, stranger),
    event(24, undefined, { name: 'AddToCart' }),
    // A custom event: TikTok has no page-event metric for it.
    event(25, undefined, { name: 'QuoteRequested' }),
  ]);
  // A test event is never counted.
  await tiktokAds.deliver!.send(session, account, PIXEL, [event(26)], { testCode: 'TEST12345' });
  expect(platforms.conversions.list('tiktok')).toHaveLength(7);
  const sentDay = today();
  const targets = [
    { ...PIXEL, events: ['CompletePayment'] },
    { ...PIXEL, events: ['AddToCart', 'CompletePayment'] },
    { ...PIXEL, events: ['QuoteRequested'] },
  ];
  const read = async (now: Date) => {
    let calls = 0;
    const counted = await tiktokAds.counted!(session, {
      account,
      targets,
      from: daysAgo(29),
      to: today(),
      now,
      onCall: () => (calls += 1),
    });
    return { counted, calls };
  };
  try {
    // Within TikTok's lag (3 hours in the sandbox) nothing shows yet.
    expect((await read(new Date())).counted).toEqual({ timeZone: 'America/Los_Angeles', rows: [] });
    // After it: per target, the events it names that TikTok could attribute, on the advertiser's day.
    const later = new Date(Date.now() + 4 * 3600 * 1000);
    platforms.reporting.clock.set(later);
    const { counted, calls } = await read(later);
    expect(counted).toEqual({
      timeZone: 'America/Los_Angeles',
      rows: [
        { targetId: PIXEL.id, events: ['CompletePayment'], date: sentDay, received: null, attributed: 3 },
        { targetId: PIXEL.id, events: ['AddToCart', 'CompletePayment'], date: sentDay, received: null, attributed: 4 },
      ],
    });
    // advertiser/info, then one report of 30 days (TikTok's longest daily range).
    expect(calls).toBe(2);
    // A share TikTok drops is not attributed: at half, the 2nd and 4th attributable events (a payment and the cart).
    platforms.reporting.set({ tiktok: { dropShare: 0.5 } });
    const dropped = (await read(later)).counted as { rows: Array<{ attributed: number }> };
    expect(dropped.rows.map((row) => row.attributed)).toEqual([2, 2]);
  } finally {
    platforms.reporting.reset();
  }
});

test('counted over more than 30 days is read in windows TikTok takes, and asks nothing for names it has no metric of', async () => {
  let calls = 0;
  const onCall = () => (calls += 1);
  const wide = await tiktokAds.counted!(session, {
    account,
    targets: [{ ...PIXEL, events: ['Purchase'] }],
    from: daysAgo(44),
    to: today(),
    onCall,
  });
  expect(wide).toEqual({ timeZone: 'America/Los_Angeles', rows: [] });
  // advertiser/info, then windows of 30 and 15 days.
  expect(calls).toBe(3);
  calls = 0;
  const custom = await tiktokAds.counted!(session, {
    account,
    targets: [{ ...PIXEL, events: ['QuoteRequested'] }],
    from: daysAgo(6),
    to: today(),
    onCall,
  });
  expect(custom).toEqual({ timeZone: 'America/Los_Angeles', rows: [] });
  expect(calls).toBe(1);
});

test('TikTok’s refusals: an old event sinks the batch (invalid), over 1,000 events is refused, a revoked login needs the user', async () => {
  const old = event(8, undefined, { time: nowSeconds() - 8 * 86_400 });
  expect(tiktokAds.deliver!.check(old, new Date())).toMatch(/Older than 7 days/);
  const sunk = await refusal(tiktokAds.deliver!.send(session, account, PIXEL, [event(9), old]));
  expect(sunk.code).toBe('invalid');
  expect(sunk.message).toMatch(/more than 7 days old/);
  expect(sunk.exchange?.sent).toEqual([toTikTokEvent(event(9)), toTikTokEvent(old)]);
  const tooMany = await refusal(
    tiktokAds.deliver!.send(
      session,
      account,
      PIXEL,
      Array.from({ length: 1001 }, (_, n) => event(n % 100, undefined, { id: `bulk-${n}` })),
    ),
  );
  expect(tooMany.code).toBe('invalid');
  expect(platforms.conversions.list('tiktok')).toEqual([]);

  platforms.conversions.fail('tiktok', { status: 429, seconds: 5 });
  expect((await refusal(tiktokAds.deliver!.send(session, account, PIXEL, [event(10)]))).code).toBe('rate_limited');
  platforms.conversions.recover('tiktok');

  platforms.revokeAll('tiktok');
  expect((await refusal(tiktokAds.listAccounts(session))).code).toBe('needs_reauth');
  expect((await refusal(tiktokAds.deliver!.send(session, account, PIXEL, [event(11)]))).code).toBe('needs_reauth');
});
