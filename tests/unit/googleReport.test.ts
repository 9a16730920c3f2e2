/** @jest-environment node */
import { PlatformError } from '@/lib/server/connectors/errors';
import { countedQuery, googleAdsCounted, TIME_ZONE_QUERY, timeZoneOf } from '@/lib/server/connectors/google_ads/counted';
import {
  googleAdsReport,
  jsonArrayElements,
  reportError,
  reportQuery,
  type SearchStreamBatch,
  toAdRows,
} from '@/lib/server/connectors/google_ads/report';
import type { AdRow } from '@/lib/shared/connections/rows';
import type { AdAccount } from '@/lib/shared/integrations/platforms';

const ACCOUNT: AdAccount = { id: '1234567890', name: 'Acme Shoes (as listed)', currency: 'USD', managerId: '1112223334' };
const NOW = new Date('2026-03-01T12:00:00Z');

const customer = {
  resourceName: 'customers/1234567890',
  id: '1234567890',
  descriptiveName: 'Acme Shoes',
  currencyCode: 'USD',
  timeZone: 'America/New_York',
};

/** A REST searchStream answer at ad level: two batches, the second with zeros left out as proto3 JSON does. */
const STREAM: SearchStreamBatch[] = [
  {
    results: [
      {
        customer,
        campaign: { id: '5141445632', name: 'Search 1' },
        adGroup: { id: '16552999936', name: 'Search 1 · group 1' },
        adGroupAd: { ad: { id: '613659144192', name: 'Ad 1.1' } },
        segments: { date: '2026-02-27' },
        metrics: { impressions: '1234', clicks: '56', costMicros: '5670000', conversions: 2, conversionsValue: 45.5 },
      },
    ],
    fieldMask: 'customer.id,campaign.id,adGroup.id,adGroupAd.ad.id,segments.date,metrics.impressions',
    requestId: 'r1',
  },
  {
    results: [
      {
        customer: { id: '1234567890', timeZone: 'America/New_York' },
        campaign: { id: '5141445632', name: 'Search 1' },
        adGroup: { id: '16552999937', name: 'Search 1 · group 2' },
        adGroupAd: { ad: { id: '613659144193', name: 'Ad 2.1' } },
        segments: { date: '2026-02-28' },
        metrics: { impressions: '200', costMicros: '1' },
      },
    ],
    fieldMask: 'customer.id',
    requestId: 'r1',
  },
];

describe('reportQuery', () => {
  test('campaign level reads FROM campaign, by day, with the account fields', () => {
    expect(reportQuery('campaign', '2026-02-01', '2026-02-28')).toBe(
      'SELECT customer.id, customer.descriptive_name, customer.currency_code, customer.time_zone, campaign.id, campaign.name, segments.date, ' +
        'metrics.impressions, metrics.clicks, metrics.cost_micros, metrics.conversions, metrics.conversions_value ' +
        "FROM campaign WHERE segments.date BETWEEN '2026-02-01' AND '2026-02-28'",
    );
  });

  test('ad group and ad levels read FROM ad_group and ad_group_ad, with their names', () => {
    const adGroup = reportQuery('ad_group', '2026-02-01', '2026-02-02');
    expect(adGroup).toContain('campaign.id, campaign.name, ad_group.id, ad_group.name, segments.date');
    expect(adGroup).toContain(' FROM ad_group WHERE ');
    expect(adGroup).not.toContain('ad_group_ad');
    const ad = reportQuery('ad', '2026-02-01', '2026-02-02');
    expect(ad).toContain('ad_group.id, ad_group.name, ad_group_ad.ad.id, ad_group_ad.ad.name, segments.date');
    expect(ad).toContain(" FROM ad_group_ad WHERE segments.date BETWEEN '2026-02-01' AND '2026-02-02'");
  });

  test('days that are not YYYY-MM-DD never reach the query text', () => {
    expect(() => reportQuery('campaign', "2026-02-01' OR '1'='1", '2026-02-02')).toThrow(PlatformError);
    expect(() => reportQuery('campaign', '2026-02-01', '02/03/2026')).toThrow(/YYYY-MM-DD/);
  });
});

describe('toAdRows', () => {
  test('maps REST rows onto AdRows: micros to money, int64 strings to numbers, zeros left out read as 0', () => {
    const rows = STREAM.flatMap((batch) => toAdRows(batch, ACCOUNT, 'ad'));
    expect(rows).toEqual<AdRow[]>([
      {
        date: '2026-02-27',
        platform: 'google_ads',
        account_id: '1234567890',
        account_name: 'Acme Shoes',
        currency: 'USD',
        time_zone: 'America/New_York',
        campaign_id: '5141445632',
        campaign_name: 'Search 1',
        ad_group_id: '16552999936',
        ad_group_name: 'Search 1 · group 1',
        ad_id: '613659144192',
        ad_name: 'Ad 1.1',
        impressions: 1234,
        clicks: 56,
        spend: 5.67,
        conversions: 2,
        conversion_value: 45.5,
      },
      {
        date: '2026-02-28',
        platform: 'google_ads',
        account_id: '1234567890',
        // Without customer.descriptive_name or currency_code in the row, the account's own.
        account_name: 'Acme Shoes (as listed)',
        currency: 'USD',
        time_zone: 'America/New_York',
        campaign_id: '5141445632',
        campaign_name: 'Search 1',
        ad_group_id: '16552999937',
        ad_group_name: 'Search 1 · group 2',
        ad_id: '613659144193',
        ad_name: 'Ad 2.1',
        impressions: 200,
        clicks: 0,
        spend: 0.000001,
        conversions: 0,
        conversion_value: 0,
      },
    ]);
  });

  test('the level decides which ids are null; the currency and time zone are the row customer’s', () => {
    const euro: SearchStreamBatch = {
      results: [
        { ...STREAM[0]!.results![0]!, customer: { ...customer, id: '5556667778', currencyCode: 'EUR', timeZone: 'Europe/Berlin' } },
      ],
    };
    const [campaignRow] = toAdRows(euro, { id: '5556667778', name: 'Direct', currency: null }, 'campaign');
    expect(campaignRow).toMatchObject({
      account_id: '5556667778',
      currency: 'EUR',
      time_zone: 'Europe/Berlin',
      ad_group_id: null,
      ad_group_name: null,
      ad_id: null,
      ad_name: null,
    });
    const [adGroupRow] = toAdRows(euro, ACCOUNT, 'ad_group');
    expect(adGroupRow).toMatchObject({ ad_group_id: '16552999936', ad_group_name: 'Search 1 · group 1', ad_id: null, ad_name: null });
    expect(toAdRows({ fieldMask: 'campaign.id', requestId: 'r' }, ACCOUNT, 'campaign')).toEqual([]);
  });

  test('large micros stay exact to the cent', () => {
    const [row] = toAdRows({ results: [{ ...STREAM[0]!.results![0]!, metrics: { costMicros: '123456789010000' } }] }, ACCOUNT, 'campaign');
    expect(row!.spend).toBe(123456789.01);
  });
});

/** Text cut into pieces of `size` characters, as a network might deliver it. */
async function* pieces(text: string, size: number) {
  for (let index = 0; index < text.length; index += size) yield text.slice(index, index + size);
}

const collect = async <T>(iterable: AsyncIterable<T>) => {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
};

describe('jsonArrayElements', () => {
  test('yields each batch of the array however the text is cut, strings with braces and escapes included', async () => {
    const tricky = [{ results: [{ campaign: { name: 'Brace } and [bracket], a "quote" \\ and ü' } }] }, ...STREAM];
    const text = `[${tricky.map((batch) => JSON.stringify(batch, null, 2)).join(',\r\n')}]`;
    for (const size of [1, 3, 7, 64, text.length]) {
      await expect(collect(jsonArrayElements(pieces(text, size)))).resolves.toEqual(tricky);
    }
    await expect(collect(jsonArrayElements(pieces('[]', 1)))).resolves.toEqual([]);
    // Backslashes cut from their quote by a chunk, in a string between the elements (which are not kept).
    for (const size of [1, 2, 3]) {
      await expect(collect(jsonArrayElements(pieces('["a\\\\", "b\\"c", {"x": "\\\\"}]', size)))).resolves.toEqual([{ x: '\\' }]);
    }
  });

  test('a stream that breaks off, or is not an array, is refused', async () => {
    const text = `[${JSON.stringify(STREAM[0])},${JSON.stringify(STREAM[1])}]`;
    await expect(collect(jsonArrayElements(pieces(text.slice(0, -20), 16)))).rejects.toThrow(/ended before/);
    await expect(collect(jsonArrayElements(pieces('{"error": {}}', 4)))).rejects.toThrow(/not a JSON array/);
    await expect(collect(jsonArrayElements(pieces('', 4)))).rejects.toThrow(/ended before/);
  });
});

const adsFailure = (code: number, status: string, errors: unknown[], extra: unknown[] = []) => ({
  error: {
    code,
    status,
    message: 'x',
    details: [{ '@type': 'type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure', errors, requestId: 'r' }, ...extra],
  },
});

describe('reportError', () => {
  test('401 needs a new login', () => {
    expect(reportError(401, { error: { status: 'UNAUTHENTICATED' } })).toMatchObject({
      code: 'needs_reauth',
      message: 'Google Ads stopped accepting this login — reconnect.',
    });
  });

  // One GoogleAdsError in the answer, as Google Ads gives most refusals; `says` is in what we show (a string is contained).
  test.each([
    {
      status: 403,
      grpcStatus: 'PERMISSION_DENIED',
      errorCode: { authorizationError: 'USER_PERMISSION_DENIED' },
      message: "User doesn't have permission to access customer.",
      code: 'forbidden',
      says: "User doesn't have permission",
    },
    {
      status: 400,
      grpcStatus: 'INVALID_ARGUMENT',
      errorCode: { queryError: 'UNRECOGNIZED_FIELD' },
      message: "Unrecognized fields in the query: 'metrics.cost'.",
      code: 'invalid',
      says: "UNRECOGNIZED_FIELD: Unrecognized fields in the query: 'metrics.cost'.",
    },
    // Metrics of a manager, in plain words.
    {
      status: 400,
      grpcStatus: 'INVALID_ARGUMENT',
      errorCode: { queryError: 'REQUESTED_METRICS_FOR_MANAGER' },
      message: 'Metrics cannot be requested for a manager account.',
      code: 'invalid',
      says: /manager account has no ads of its own/,
    },
  ])('$status $grpcStatus $errorCode → $code', ({ status, grpcStatus, errorCode, message, code, says }) => {
    const error = reportError(status, adsFailure(status, grpcStatus, [{ errorCode, message }]));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(says);
  });

  test('RESOURCE_EXHAUSTED is rate limited until the retry delay Google gave', () => {
    const quota = adsFailure(429, 'RESOURCE_EXHAUSTED', [
      {
        errorCode: { quotaError: 'RESOURCE_EXHAUSTED' },
        message: 'Too many requests.',
        details: { quotaErrorDetails: { rateScope: 'ACCOUNT', retryDelay: '30s' } },
      },
    ]);
    const limited = reportError(429, quota, NOW);
    expect(limited.code).toBe('rate_limited');
    expect(limited.retryAt).toEqual(new Date(NOW.getTime() + 30_000));
    const retryInfoOnly = adsFailure(
      429,
      'RESOURCE_EXHAUSTED',
      [],
      [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.5s' }],
    );
    expect(reportError(429, retryInfoOnly, NOW).retryAt).toEqual(new Date(NOW.getTime() + 1500));
    expect(reportError(429, {}, NOW)).toMatchObject({ code: 'rate_limited', retryAt: undefined });
  });

  test('5xx may pass later', () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(reportError(500, { error: { status: 'INTERNAL' } }).code).toBe('retryable');
    expect(reportError(503, {}).code).toBe('retryable');
    logged.mockRestore();
  });
});

describe('googleAdsReport', () => {
  const session = { accessToken: 'ya29.test', rotated: null };
  let fetchMock: jest.SpyInstance;
  afterEach(() => fetchMock?.mockRestore());

  /** A 200 whose body arrives in small pieces. */
  function streamedResponse(text: string) {
    const bytes = new TextEncoder().encode(text);
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let index = 0; index < bytes.length; index += 50) controller.enqueue(bytes.slice(index, index + 50));
          controller.close();
        },
      }),
      { status: 200, headers: { 'Content-Type': 'application/json' } },
    );
  }

  test('one request through the manager; one page of rows per streamed batch', async () => {
    fetchMock = jest.spyOn(global, 'fetch').mockResolvedValue(streamedResponse(JSON.stringify(STREAM)));
    const onCall = jest.fn();
    const pages = await collect(googleAdsReport(session, { account: ACCOUNT, level: 'ad', from: '2026-02-27', to: '2026-02-28', onCall }));
    expect(pages.map((page) => page.length)).toEqual([1, 1]);
    expect(pages[0]![0]!.spend).toBe(5.67);
    expect(onCall).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toMatch(/\/v26\/customers\/1234567890\/googleAds:searchStream$/);
    expect(init.headers).toMatchObject({ Authorization: 'Bearer ya29.test', 'login-customer-id': '1112223334' });
    expect(JSON.parse(String(init.body))).toEqual({ query: reportQuery('ad', '2026-02-27', '2026-02-28') });
  });

  test('a directly accessible account is its own login-customer-id', async () => {
    fetchMock = jest.spyOn(global, 'fetch').mockResolvedValue(streamedResponse('[{"fieldMask":"customer.id","requestId":"r"}]'));
    const pages = await collect(
      googleAdsReport(session, {
        account: { id: '5556667778', name: 'Direct', managerId: null },
        level: 'campaign',
        from: '2026-02-27',
        to: '2026-02-28',
      }),
    );
    expect(pages).toEqual([]);
    expect((fetchMock.mock.calls[0] as [string, RequestInit])[1].headers).toMatchObject({ 'login-customer-id': '5556667778' });
  });

  test('a manager account is refused in plain words, without a request', async () => {
    fetchMock = jest.spyOn(global, 'fetch');
    const onCall = jest.fn();
    const report = collect(
      googleAdsReport(session, {
        account: { id: '1112223334', name: 'Agency', isManager: true },
        level: 'campaign',
        from: '2026-02-27',
        to: '2026-02-28',
        onCall,
      }),
    );
    await expect(report).rejects.toMatchObject({ code: 'invalid', message: expect.stringContaining('manager account') });
    expect(fetchMock).not.toHaveBeenCalled();
    expect(onCall).not.toHaveBeenCalled();
  });

  test('a network failure, or a stream that breaks off, may pass later', async () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    fetchMock = jest.spyOn(global, 'fetch').mockRejectedValue(new TypeError('fetch failed'));
    await expect(
      collect(googleAdsReport(session, { account: ACCOUNT, level: 'campaign', from: '2026-02-27', to: '2026-02-28' })),
    ).rejects.toMatchObject({ code: 'retryable' });
    fetchMock.mockResolvedValue(streamedResponse(JSON.stringify(STREAM).slice(0, -30)));
    await expect(
      collect(googleAdsReport(session, { account: ACCOUNT, level: 'ad', from: '2026-02-27', to: '2026-02-28' })),
    ).rejects.toMatchObject({ code: 'retryable' });
    logged.mockRestore();
  });
});

describe('googleAdsCounted', () => {
  const session = { accessToken: 'ya29.test', rotated: null };
  let fetchMock: jest.SpyInstance;
  afterEach(() => fetchMock?.mockRestore());

  const answer = (batches: unknown[]) => new Response(JSON.stringify(batches), { status: 200 });

  test("days are the customer's: its time_zone read first, the days asked end on its today, a 02:00 UTC day is the Eastern day before", async () => {
    fetchMock = jest
      .spyOn(global, 'fetch')
      .mockResolvedValueOnce(answer([{ results: [{ customer: { resourceName: 'customers/1234567890', timeZone: 'America/New_York' } }] }]))
      .mockResolvedValueOnce(
        answer([
          {
            results: [
              {
                segments: { conversionAction: 'customers/1234567890/conversionActions/9001', date: '2026-11-14' },
                metrics: { allConversionsByConversionDate: 4 },
              },
            ],
          },
        ]),
      );
    const onCall = jest.fn();
    // 02:00 UTC on Nov 15 is still Nov 14 in New York: the 8 days asked end there, not on Nov 15.
    const read = await googleAdsCounted(session, {
      account: ACCOUNT,
      targets: [{ id: '9001', name: 'Purchase', events: [] }],
      from: '2026-11-08',
      to: '2026-11-15',
      now: new Date('2026-11-15T02:00:00Z'),
      onCall,
    });
    expect(read).toEqual({
      timeZone: 'America/New_York',
      rows: [{ targetId: '9001', events: null, date: '2026-11-14', received: null, attributed: 4 }],
    });
    expect(onCall).toHaveBeenCalledTimes(2);
    const queries = fetchMock.mock.calls.map(([, init]) => JSON.parse(String((init as RequestInit).body)).query);
    expect(queries).toEqual([TIME_ZONE_QUERY, countedQuery('2026-11-07', '2026-11-14')]);
    expect((fetchMock.mock.calls[0] as [string, RequestInit])[1].headers).toMatchObject({ 'login-customer-id': '1112223334' });
  });

  test('a customer whose zone Google does not name keeps UTC days', () => {
    expect(timeZoneOf([{ results: [{ customer: { timeZone: 'Not/AZone' } }] }])).toBe('UTC');
    expect(timeZoneOf([{ fieldMask: 'customer.timeZone' }])).toBe('UTC');
  });
});
