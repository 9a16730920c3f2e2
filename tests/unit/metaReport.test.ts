/** @jest-environment node */
import { PlatformError } from '@/lib/server/connectors/errors';
import { metaCounted, receivedByDay } from '@/lib/server/connectors/meta_ads/counted';
import {
  conversionsOf,
  type InsightsRow,
  isTooBig,
  parseUsage,
  purchaseActionType,
  reportError,
  throttleOf,
  toAdRow,
} from '@/lib/server/connectors/meta_ads/report';

const ACCOUNT = { id: '101', name: 'Acme Shoes (Meta)', currency: 'USD', timeZone: 'America/New_York' };
const NOW = Date.parse('2026-03-01T12:00:00Z');

/** A row as Meta sends it: metrics as strings, one purchase listed under three action types. */
const row = (overrides: Partial<InsightsRow> = {}): InsightsRow => ({
  date_start: '2026-02-20',
  date_stop: '2026-02-20',
  campaign_id: '120210000000001',
  campaign_name: 'Search 1',
  adset_id: '120210000000002',
  adset_name: 'Search 1 · group 1',
  ad_id: '120210000000003',
  ad_name: 'Ad 1.1',
  impressions: '1834',
  clicks: '41',
  spend: '12.34',
  actions: [
    { action_type: 'link_click', value: '41' },
    { action_type: 'offsite_conversion.fb_pixel_purchase', value: '3' },
    { action_type: 'purchase', value: '3' },
    { action_type: 'omni_purchase', value: '3' },
  ],
  action_values: [
    { action_type: 'offsite_conversion.fb_pixel_purchase', value: '89.50' },
    { action_type: 'purchase', value: '89.50' },
    { action_type: 'omni_purchase', value: '89.50' },
  ],
  ...overrides,
});

describe('an insights row as an AdRow', () => {
  test('an ad-level row: strings parsed, the account from its settings, one purchase counted once', () => {
    expect(toAdRow(row(), ACCOUNT, 'ad')).toEqual({
      date: '2026-02-20',
      platform: 'meta_ads',
      account_id: '101',
      account_name: 'Acme Shoes (Meta)',
      currency: 'USD',
      time_zone: 'America/New_York',
      campaign_id: '120210000000001',
      campaign_name: 'Search 1',
      ad_group_id: '120210000000002',
      ad_group_name: 'Search 1 · group 1',
      ad_id: '120210000000003',
      ad_name: 'Ad 1.1',
      impressions: 1834,
      clicks: 41,
      spend: 12.34,
      conversions: 3,
      conversion_value: 89.5,
    });
  });

  test('a campaign-level row has no ad group or ad; an ad-set row no ad', () => {
    const campaign = toAdRow(
      row({ adset_id: undefined, adset_name: undefined, ad_id: undefined, ad_name: undefined }),
      ACCOUNT,
      'campaign',
    );
    expect(campaign).toMatchObject({ ad_group_id: null, ad_group_name: null, ad_id: null, ad_name: null });
    expect(toAdRow(row({ ad_id: undefined, ad_name: undefined }), ACCOUNT, 'ad_group')).toMatchObject({
      ad_group_id: '120210000000002',
      ad_id: null,
      ad_name: null,
    });
  });

  test('spend strings parse to the same decimal; missing metrics and actions are zero', () => {
    expect(toAdRow(row({ spend: '0.10' }), ACCOUNT, 'ad').spend).toBe(0.1);
    expect(toAdRow(row({ spend: '1234567.89' }), ACCOUNT, 'ad').spend).toBe(1234567.89);
    const quiet = toAdRow({ date_start: '2026-02-21', campaign_id: '1', campaign_name: 'C' }, ACCOUNT, 'campaign');
    expect(quiet).toMatchObject({ impressions: 0, clicks: 0, spend: 0, conversions: 0, conversion_value: 0 });
  });
});

describe('one action type, never a sum', () => {
  test('omni_purchase is preferred, then purchase, then the pixel purchase; link clicks never count', () => {
    expect(purchaseActionType(row())).toBe('omni_purchase');
    const withoutOmni = row({
      actions: [
        { action_type: 'purchase', value: '2' },
        { action_type: 'offsite_conversion.fb_pixel_purchase', value: '5' },
      ],
      action_values: [
        { action_type: 'purchase', value: '40' },
        { action_type: 'offsite_conversion.fb_pixel_purchase', value: '100' },
      ],
    });
    expect(conversionsOf(withoutOmni)).toEqual({ conversions: 2, conversion_value: 40 });
    const pixelOnly = row({
      actions: [{ action_type: 'offsite_conversion.fb_pixel_purchase', value: '4' }],
      action_values: [{ action_type: 'offsite_conversion.fb_pixel_purchase', value: '60.25' }],
    });
    expect(conversionsOf(pixelOnly)).toEqual({ conversions: 4, conversion_value: 60.25 });
    expect(conversionsOf(row({ actions: [{ action_type: 'link_click', value: '41' }], action_values: undefined }))).toEqual({
      conversions: 0,
      conversion_value: 0,
    });
  });

  test('three types of the same purchase give 3, not 9', () => {
    expect(conversionsOf(row())).toEqual({ conversions: 3, conversion_value: 89.5 });
  });

  test('the value comes from the same type as the count, even when only one array names it', () => {
    const valueOnly = row({
      actions: [{ action_type: 'purchase', value: '1' }],
      action_values: [{ action_type: 'omni_purchase', value: '30' }],
    });
    // omni_purchase is reported (in action_values), so it is the type for both: no count of it, its value.
    expect(conversionsOf(valueOnly)).toEqual({ conversions: 0, conversion_value: 30 });
  });
});

describe('the usage header', () => {
  const header = (entries: Array<Record<string, number | string>>, id = '101') => JSON.stringify({ [id]: entries });

  test('the highest of call count, CPU time and total time, for our account', () => {
    const usage = parseUsage(
      header([{ type: 'ads_insights', call_count: 12, total_cputime: 80, total_time: 30, estimated_time_to_regain_access: 0 }]),
      '101',
    );
    expect(usage).toEqual({ percent: 80, regainMinutes: 0 });
    const other = JSON.stringify({ '999': [{ type: 'ads_insights', call_count: 99 }], '101': [{ type: 'ads_management', call_count: 5 }] });
    expect(parseUsage(other, '101')).toEqual({ percent: 5, regainMinutes: 0 });
    expect(parseUsage(header([{ call_count: 40 }], 'act_101'), '101')?.percent).toBe(40);
    expect(parseUsage(null, '101')).toBeNull();
    expect(parseUsage('not json', '101')).toBeNull();
  });

  test('at or under 75 % there is no wait; above it a pause that grows towards 95 %', () => {
    expect(throttleOf(null, NOW)).toEqual({ waitMs: 0 });
    expect(throttleOf({ percent: 75, regainMinutes: 0 }, NOW)).toEqual({ waitMs: 0 });
    const at80 = throttleOf({ percent: 80, regainMinutes: 0 }, NOW) as { waitMs: number };
    const at90 = throttleOf({ percent: 90, regainMinutes: 0 }, NOW) as { waitMs: number };
    expect(at80.waitMs).toBeGreaterThan(0);
    expect(at90.waitMs).toBeGreaterThan(at80.waitMs);
    expect(at90.waitMs).toBe(15_000);
    expect((throttleOf({ percent: 95, regainMinutes: 0 }, NOW) as { waitMs: number }).waitMs).toBe(20_000);
  });

  test('above 95 % the report stops with a retry time instead of pushing the account into a block', () => {
    const decision = throttleOf({ percent: 96, regainMinutes: 0 }, NOW);
    expect(decision).toEqual({ retryAt: new Date(NOW + 0.21 * 3_600_000) });
  });

  test('throttled: a short regain time is waited out, a long one becomes the retry time', () => {
    expect(throttleOf({ percent: 100, regainMinutes: 0.5 }, NOW)).toEqual({ waitMs: 30_000 });
    expect(throttleOf({ percent: 100, regainMinutes: 7 }, NOW)).toEqual({ retryAt: new Date(NOW + 7 * 60_000) });
  });
});

describe('refusals', () => {
  const refusal = (status: number, error: Record<string, unknown>, regainMinutes = 0) =>
    reportError({ status, body: { error }, usage: regainMinutes ? { percent: 100, regainMinutes } : null }, NOW);

  test('80000, 17, 4 and 613 are rate_limited with a retry time (Meta’s regain time when it gives one)', () => {
    const buc = refusal(
      400,
      { code: 80000, error_subcode: 2446079, message: '(#80000) There have been too many calls from this ad-account.' },
      12,
    );
    expect(buc).toBeInstanceOf(PlatformError);
    expect(buc.code).toBe('rate_limited');
    expect(buc.retryAt).toEqual(new Date(NOW + 12 * 60_000));
    for (const code of [17, 4, 613]) {
      const error = refusal(400, { code, message: 'User request limit reached' });
      expect(error.code).toBe('rate_limited');
      expect(error.retryAt!.getTime()).toBeGreaterThan(NOW);
    }
  });

  test('190 needs reauth; 5xx is retryable; a bad parameter is invalid', () => {
    const reauth = refusal(400, { code: 190, error_subcode: 460, message: 'Error validating access token' });
    expect(reauth.code).toBe('needs_reauth');
    expect(reauth.message).toBe('Meta stopped accepting this login — reconnect.');
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(refusal(500, { code: 1, message: 'An unknown error occurred' }).code).toBe('retryable');
    expect(refusal(503, { code: 2, message: 'Service temporarily unavailable' }).code).toBe('retryable');
    expect(refusal(400, { code: 100, message: '(#100) time_range is invalid' }).code).toBe('invalid');
    logged.mockRestore();
  });

  test('"reduce the amount of data" and insights timeouts are too big; an unknown error is not', () => {
    expect(
      isTooBig({ body: { error: { code: 1, message: "Please reduce the amount of data you're asking for, then retry your request" } } }),
    ).toBe(true);
    expect(isTooBig({ body: { error: { code: 100, error_subcode: 1504018, message: 'Your request timed out' } } })).toBe(true);
    expect(isTooBig({ body: { error: { code: 1, message: 'An unknown error occurred' } } })).toBe(false);
  });
});

describe('what Meta counted', () => {
  const session = { accessToken: 'EAAB.test', rotated: null };
  let fetchMock: jest.SpyInstance;
  afterEach(() => fetchMock?.mockRestore());

  const answer = (body: unknown) => new Response(JSON.stringify(body), { status: 200 });

  test("days are the ad account's: its timezone_name read first, insights asked for days ending on its today, stats hours summed into them", async () => {
    fetchMock = jest.spyOn(global, 'fetch').mockImplementation(async (input) => {
      const url = new URL(String(input));
      if (url.pathname.endsWith('/act_101')) return answer({ id: 'act_101', timezone_name: 'America/New_York' });
      if (url.pathname.endsWith('/act_101/insights'))
        return answer({
          data: [
            {
              date_start: '2026-11-14',
              date_stop: '2026-11-14',
              actions: [{ action_type: 'offsite_conversion.fb_pixel_purchase', value: '3' }],
            },
          ],
        });
      // Sent at 02:00 UTC on Nov 15: 21:00 on Nov 14 in New York.
      return answer({ data: [{ start_time: '2026-11-15T02:00:00+0000', aggregation: 'event', data: [{ value: 'Purchase', count: 4 }] }] });
    });
    const onCall = jest.fn();
    const read = await metaCounted(session, {
      account: ACCOUNT,
      targets: [{ id: '555000111', name: 'Shop pixel', events: ['Purchase'] }],
      from: '2026-11-08',
      to: '2026-11-15',
      now: new Date('2026-11-15T03:00:00Z'),
      onCall,
    });
    expect(read).toEqual({
      timeZone: 'America/New_York',
      rows: [{ targetId: '555000111', events: ['Purchase'], date: '2026-11-14', received: 4, attributed: 3 }],
    });
    expect(onCall).toHaveBeenCalledTimes(3);
    const [, insights, stats] = fetchMock.mock.calls.map(([input]) => new URL(String(input)).searchParams);
    expect(JSON.parse(insights!.get('time_range')!)).toEqual({ since: '2026-11-07', until: '2026-11-14' });
    // From New York's midnight of Nov 7 (05:00 UTC) to its midnight after Nov 14.
    expect([stats!.get('start_time'), stats!.get('end_time')]).toEqual([
      String(Date.parse('2026-11-07T05:00:00Z') / 1000),
      String(Date.parse('2026-11-15T05:00:00Z') / 1000),
    ]);
  });

  test('hourly stats buckets fall on the day of the zone, whatever offset Graph writes', () => {
    const buckets = [
      { start_time: '2026-11-15T02:00:00+0000', data: [{ value: 'Purchase', count: 2 }] },
      { start_time: '2026-11-15T05:00:00+0000', data: [{ value: 'Purchase', count: 1 }] },
    ];
    expect(receivedByDay(buckets, 'America/New_York').get('Purchase')).toEqual(
      new Map([
        ['2026-11-14', 2],
        ['2026-11-15', 1],
      ]),
    );
    expect(receivedByDay(buckets).get('Purchase')).toEqual(new Map([['2026-11-15', 3]]));
  });
});
