/** @jest-environment node */
import { createHash } from 'node:crypto';
import { tiktokGet } from '@/lib/server/connectors/tiktok_ads/api';
import { chargeToEvent } from '@/lib/server/delivery/payments';
import { rowToEvent } from '@/lib/server/delivery/warehouseRows';
import { tiktokConfig } from '@/lib/server/connectors/tiktok_ads/config';
import { TIKTOK_MAX_EVENTS, tiktokDelivery, toTikTokEvent } from '@/lib/server/connectors/tiktok_ads/delivery';
import { tiktokAdsError } from '@/lib/server/connectors/tiktok_ads/errors';
import { TIKTOK_EVENT_METRICS, tiktokEventMetric } from '@/lib/server/connectors/tiktok_ads/counted';
import { TIKTOK_LEVELS, TIKTOK_MAX_DAYS, TIKTOK_MAX_PAGE_SIZE, toAdRow } from '@/lib/server/connectors/tiktok_ads/report';
import { TIKTOK_ADS_VERSION } from '@/lib/server/connectors/tiktok_ads/version';
import { tiktokAdsRecord } from '@/lib/server/connectors/tiktok_ads/platform';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { PAGE_EVENT_METRICS } from '@/sandbox/tiktok_ads/report';

// TikTok's wire facts, each with where TikTok documents it (docs/PLATFORMS.md, "TikTok"): a change to any of
// them must be a change to this table too.
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

const saved = process.env.TIKTOK_BUSINESS_API_URL;
beforeEach(() => delete process.env.TIKTOK_BUSINESS_API_URL);
afterAll(() => {
  if (saved === undefined) delete process.env.TIKTOK_BUSINESS_API_URL;
  else process.env.TIKTOK_BUSINESS_API_URL = saved;
});

test.each([
  // API for Business, "Versioning" and "Authentication": one host for the consent page and the API, the version in the path.
  ['API base', () => tiktokConfig().apiUrl, 'https://business-api.tiktok.com/open_api/v1.3'],
  ['authorization page', () => tiktokConfig().authUrl, 'https://business-api.tiktok.com/portal/auth'],
  ['pinned version', () => TIKTOK_ADS_VERSION.version, 'v1.3'],
  // Reporting, "Synchronous reports": with stat_time_day at most 30 days a request; page_size at most 1,000.
  ['daily range per request', () => TIKTOK_MAX_DAYS, 30],
  ['report page size', () => TIKTOK_MAX_PAGE_SIZE, 1000],
  // Events API 2.0: `data` holds up to 1,000 events.
  ['events per request', () => TIKTOK_MAX_EVENTS, 1000],
  ['delivery batch', () => tiktokDelivery.maxBatch, 1000],
  ['campaign level', () => TIKTOK_LEVELS.campaign.dataLevel, 'AUCTION_CAMPAIGN'],
  ['ad group level', () => TIKTOK_LEVELS.ad_group.dataLevel, 'AUCTION_ADGROUP'],
  ['ad level', () => TIKTOK_LEVELS.ad.dataLevel, 'AUCTION_AD'],
  // Our catalogue: TikTok's phone is E.164 with its + (not Meta's digits-only form); its click id is ttclid, its cookie _ttp.
  ['phone form', () => tiktokAdsRecord.ad.matchKeys.phone, { anyOf: ['user.phoneE164'] }],
  ['click ids', () => tiktokAdsRecord.ad.matchKeys.clickId, { anyOf: ['clickIds.ttclid', 'clickIds.ttp'] }],
])('%s', (_fact, read, expected) => {
  expect(read()).toEqual(expected);
});

test('a call carries the token in Access-Token, lists as JSON arrays, and a non-zero code with HTTP 200 is a refusal', async () => {
  const sent: Array<{ url: string; headers: Record<string, string> }> = [];
  const fetchSpy = jest.spyOn(global, 'fetch').mockImplementation(async (input, init) => {
    sent.push({ url: String(input), headers: (init?.headers ?? {}) as Record<string, string> });
    return new Response(JSON.stringify({ code: 40105, message: 'Access token is incorrect or has been revoked.', data: {} }), {
      status: 200,
    });
  });
  try {
    await expect(tiktokGet('/advertiser/info/', 'tok', { advertiser_ids: ['1', '2'] })).rejects.toMatchObject({ code: 'needs_reauth' });
    expect(sent[0]!.headers).toEqual({ 'Access-Token': 'tok' });
    expect(new URL(sent[0]!.url).searchParams.get('advertiser_ids')).toBe('["1","2"]');
    expect(new URL(sent[0]!.url).pathname).toBe('/open_api/v1.3/advertiser/info/');
  } finally {
    fetchSpy.mockRestore();
  }
});

// "Return codes": HTTP 200 with `code`; the kind each becomes.
test.each([
  [40102, 'needs_reauth'],
  [40104, 'needs_reauth'],
  [40105, 'needs_reauth'],
  [40107, 'needs_reauth'],
  [40100, 'rate_limited'],
  [51021, 'rate_limited'],
  [50000, 'retryable'],
  [50002, 'retryable'],
  [40001, 'forbidden'],
  [40002, 'invalid'],
  [40110, 'invalid'],
])('return code %s is %s', (code, kind) => {
  expect(tiktokAdsError(200, { code, message: 'm' }).code).toBe(kind);
});

test('an event in the Events API 2.0 form: seconds, SHA-256 email and E.164 phone, click ids and context in clear', () => {
  const event: ConversionEvent = {
    id: 'order-1',
    name: 'CompletePayment',
    time: 1_790_000_000,
    value: 12.5,
    currency: 'EUR',
    user: {
      email: sha256('jane@example.com'),
      phone: sha256('4915112345678'),
      phoneE164: sha256('+4915112345678'),
      externalId: sha256('c-1'),
    },
    clickIds: { ttclid: 'E.C.P.abc', ttp: '2F7h37YkS1j', fbc: 'fb.1.1.x' },
    context: { ip: '203.0.113.7', userAgent: 'UA', pageUrl: 'https://example.com/thanks', actionSource: 'website' },
  };
  expect(toTikTokEvent(event)).toEqual({
    event: 'CompletePayment',
    event_time: 1_790_000_000,
    event_id: 'order-1',
    user: {
      email: sha256('jane@example.com'),
      phone: sha256('+4915112345678'),
      external_id: sha256('c-1'),
      ttclid: 'E.C.P.abc',
      ttp: '2F7h37YkS1j',
      ip: '203.0.113.7',
      user_agent: 'UA',
    },
    properties: { value: 12.5, currency: 'EUR' },
    page: { url: 'https://example.com/thanks' },
  });
});

test('a report row: ids in dimensions, names and figures in metrics (strings), the day of stat_time_day', () => {
  const row = toAdRow(
    {
      dimensions: { adgroup_id: '55', stat_time_day: '2026-11-01 00:00:00' },
      metrics: {
        campaign_id: '5',
        campaign_name: 'Spring',
        adgroup_name: 'Spring · 1',
        spend: '12.34',
        impressions: '1000',
        clicks: '20',
        conversion: '3',
        total_complete_payment_rate: '75.00',
      },
    },
    { id: '7', name: 'Acme', currency: 'USD', timeZone: 'America/Los_Angeles' },
    'ad_group',
  );
  expect(row).toMatchObject({
    date: '2026-11-01',
    campaign_id: '5',
    ad_group_id: '55',
    ad_id: null,
    spend: 12.34,
    conversions: 3,
    conversion_value: 75,
  });
});

test('TikTok’s click id and cookie reach the event from a warehouse row’s columns and a payment’s metadata', () => {
  const mapped = rowToEvent(
    { id: 'r-1', at: '2026-11-20T10:00:00Z', click: 'E.C.P.row', cookie: 'ttp-row' },
    { columns: { eventId: 'id', eventTime: 'at', ttclid: 'click', ttp: 'cookie' }, eventName: 'Lead' },
    'bigquery:d1',
  );
  expect(mapped).toMatchObject({ ok: true, event: { clickIds: { ttclid: 'E.C.P.row', ttp: 'ttp-row' } } });
  const paid = chargeToEvent({
    id: 'ch_t',
    created: 1_800_000_000,
    amount: 1000,
    currency: 'usd',
    status: 'succeeded',
    metadata: { ttclid: 'E.C.P.paid', TTP: 'ttp-paid' },
  } as unknown as Parameters<typeof chargeToEvent>[0]);
  expect(paid.clickIds).toEqual({ ttclid: 'E.C.P.paid', ttp: 'ttp-paid' });
});

test('counted: each standard event’s page-event metric (docs/PLATFORMS.md, "Counted by the platform"), the same in the connector and its fake', () => {
  expect(tiktokEventMetric('CompletePayment')).toBe('complete_payment');
  expect(tiktokEventMetric('purchase')).toBe('complete_payment');
  expect(tiktokEventMetric('AddToCart')).toBe('web_event_add_to_cart');
  expect(tiktokEventMetric('SubmitForm')).toBe('form');
  // A custom event has no metric: no figure, rather than the ad group's optimisation event (`conversion`).
  expect(tiktokEventMetric('QuoteRequested')).toBeNull();
  const fromFake = Object.entries(PAGE_EVENT_METRICS).flatMap(([metric, names]) => names.map((name) => [name, metric]));
  expect(Object.fromEntries(fromFake.sort(([a], [b]) => a!.localeCompare(b!)))).toEqual(
    Object.fromEntries(Object.entries(TIKTOK_EVENT_METRICS).sort(([a], [b]) => a.localeCompare(b))),
  );
});
