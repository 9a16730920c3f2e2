/** @jest-environment node */
import { LINKEDIN_ADS_ERRORS } from '@/lib/server/connectors/linkedin_ads/errors';
import { linkedinAdsError } from '@/lib/server/connectors/linkedin_ads/errors';
import { linkedinConfig } from '@/lib/server/connectors/linkedin_ads/config';
import { conversionEvent, ID_TYPES, LOOKBACK_MS, MAX_BATCH } from '@/lib/server/connectors/linkedin_ads/delivery';
import { countedQuery } from '@/lib/server/connectors/linkedin_ads/counted';
import { analyticsQuery, daysPerRequest, MAX_ELEMENTS, METRICS, PIVOTS } from '@/lib/server/connectors/linkedin_ads/report';
import { LINKEDIN_ADS_VERSION, LINKEDIN_VERSIONS_LEFT } from '@/lib/server/connectors/linkedin_ads/version';
import { linkedinAdsRecord } from '@/lib/server/connectors/linkedin_ads/platform';
import { conversionEventSchema } from '@/lib/shared/conversions/event';
import { isActiveVersion } from '@/sandbox/linkedin_ads/accounts';
import { eventError, ID_TYPES as FAKE_ID_TYPES, MAX_EVENTS } from '@/sandbox/linkedin_ads/delivery';
import { parseDateRange } from '@/sandbox/linkedin_ads/report';

// LinkedIn's wire facts as the connector and its fake hold them, each beside where LinkedIn documents it:
// Versioning  https://learn.microsoft.com/linkedin/marketing/versioning
// Conversions https://learn.microsoft.com/linkedin/marketing/integrations/ads-reporting/conversions-api
// Reporting   https://learn.microsoft.com/linkedin/marketing/integrations/ads-reporting/ads-reporting
// OAuth       https://learn.microsoft.com/linkedin/shared/authentication/authorization-code-flow
// Errors      https://learn.microsoft.com/linkedin/shared/api-guide/concepts/error-handling

test.each([
  [
    'Versioning: the version is a YYYYMM header, sent with Rest.li 2.0',
    linkedinConfig().headers,
    { 'LinkedIn-Version': LINKEDIN_ADS_VERSION.version, 'X-Restli-Protocol-Version': '2.0.0' },
  ],
  ['Versioning: 202511 was sunset on 2026-11-16', LINKEDIN_VERSIONS_LEFT, [{ version: '202511', sunset: '2026-11-16' }]],
  ['OAuth: the scopes of ads, their reports and conversions', linkedinConfig().scope, 'r_ads r_ads_reporting rw_conversions'],
  [
    'OAuth: the real hosts',
    [linkedinConfig().oauthUrl, linkedinConfig().apiUrl],
    ['https://www.linkedin.com/oauth/v2', 'https://api.linkedin.com'],
  ],
  ['Conversions: up to 5,000 events a batch', [MAX_BATCH, MAX_EVENTS], [5000, 5000]],
  ['Conversions: within the past 90 days', LOOKBACK_MS, 90 * 86_400_000],
  [
    'Conversions: the idType enum',
    FAKE_ID_TYPES,
    ['SHA256_EMAIL', 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID', 'ACXIOM_ID', 'ORACLE_MOAT_ID'],
  ],
  ['Conversions: what we send of it', Object.values(ID_TYPES), ['SHA256_EMAIL', 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID']],
  ['Reporting: at most 15,000 elements, no paging', MAX_ELEMENTS, 15_000],
  [
    'Reporting: one pivot for q=analytics, up to three for q=statistics',
    PIVOTS,
    { campaign: ['CAMPAIGN_GROUP'], ad_group: ['CAMPAIGN_GROUP', 'CAMPAIGN'], ad: ['CAMPAIGN_GROUP', 'CAMPAIGN', 'CREATIVE'] },
  ],
  [
    'Reporting: the metrics read (at most 20)',
    METRICS,
    ['impressions', 'clicks', 'costInLocalCurrency', 'externalWebsiteConversions', 'conversionValueInLocalCurrency'],
  ],
  [
    'Catalogue: match keys in LinkedIn’s form',
    linkedinAdsRecord.ad.matchKeys,
    { email: { anyOf: ['user.email'] }, clickId: { anyOf: ['clickIds.li_fat_id'] } },
  ],
])('%s', (_fact, actual, documented) => {
  expect(actual).toEqual(documented);
});

test('Reporting: the adAnalytics query in Rest.li 2.0 form, the account URN encoded inside List()', () => {
  expect(analyticsQuery('510001', 'campaign', '2026-01-30', '2026-02-02')).toBe(
    'q=analytics&pivot=CAMPAIGN_GROUP&timeGranularity=DAILY&dateRange=(start:(year:2026,month:1,day:30),end:(year:2026,month:2,day:2))' +
      '&accounts=List(urn%3Ali%3AsponsoredAccount%3A510001)&fields=dateRange,pivotValues,impressions,clicks,costInLocalCurrency,externalWebsiteConversions,conversionValueInLocalCurrency',
  );
  expect(analyticsQuery('510001', 'ad', '2026-01-01', '2026-01-01')).toContain(
    'q=statistics&pivots=List(CAMPAIGN_GROUP,CAMPAIGN,CREATIVE)&',
  );
  expect(countedQuery('510001', '2026-01-01', '2026-01-02')).toContain('q=analytics&pivot=CONVERSION&timeGranularity=DAILY&');
  expect(parseDateRange('(start:(year:2026,month:1,day:30),end:(year:2026,month:2,day:2))')).toEqual({
    from: '2026-01-30',
    to: '2026-02-02',
  });
});

test.each([
  [1, 366],
  [40, 366],
  [41, 365],
  [400, 37],
  [15_000, 1],
  [20_000, 1],
])('Reporting: %i objects a day → %i days a request, never more than 15,000 elements', (objects, days) => {
  expect(daysPerRequest(objects)).toBe(days);
  if (objects <= MAX_ELEMENTS) expect(objects * daysPerRequest(objects)).toBeLessThanOrEqual(MAX_ELEMENTS);
});

test('Conversions: an event on the wire — the rule URN, epoch ms, the value as a decimal string, eventId and userIds', () => {
  const event = conversionEventSchema.parse({
    id: 'order-1',
    name: 'Purchase',
    time: 1_790_000_000,
    value: 19.9,
    currency: 'EUR',
    user: { email: 'a'.repeat(64) },
    clickIds: { li_fat_id: 'b2c3-uuid' },
    context: { actionSource: 'website' },
  });
  expect(conversionEvent('17001')(event)).toEqual({
    conversion: 'urn:lla:llaPartnerConversion:17001',
    conversionHappenedAt: 1_790_000_000_000,
    conversionValue: { currencyCode: 'EUR', amount: '19.9' },
    eventId: 'order-1',
    user: {
      userIds: [
        { idType: 'SHA256_EMAIL', idValue: 'a'.repeat(64) },
        { idType: 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID', idValue: 'b2c3-uuid' },
      ],
    },
  });
});

test.each([
  [{}, /conversion must be/],
  [
    {
      conversion: 'urn:lla:llaPartnerConversion:17003',
      conversionHappenedAt: Date.now() - 1000,
      user: { userIds: [{ idType: 'SHA256_EMAIL', idValue: 'a'.repeat(64) }] },
    },
    /conversionMethod INSIGHT_TAG/,
  ],
  [
    {
      conversion: 'urn:lla:llaPartnerConversion:17001',
      conversionHappenedAt: Date.now() - 91 * 86_400_000,
      user: { userIds: [{ idType: 'SHA256_EMAIL', idValue: 'a'.repeat(64) }] },
    },
    /90 days/,
  ],
  [
    {
      conversion: 'urn:lla:llaPartnerConversion:17001',
      conversionHappenedAt: Date.now() - 1000,
      user: { userIds: [{ idType: 'EMAIL', idValue: 'x@y.z' }] },
    },
    /Invalid idType/,
  ],
  [
    {
      conversion: 'urn:lla:llaPartnerConversion:17001',
      conversionHappenedAt: Date.now() - 1000,
      user: { userIds: [{ idType: 'SHA256_EMAIL', idValue: 'x@y.z' }] },
    },
    /SHA-256/,
  ],
  [
    { conversion: 'urn:lla:llaPartnerConversion:17001', conversionHappenedAt: Date.now() - 1000, user: { userIds: [] } },
    /at least one userId/,
  ],
  [
    {
      conversion: 'urn:lla:llaPartnerConversion:17001',
      conversionHappenedAt: Date.now() - 1000,
      conversionValue: { currencyCode: 'USD', amount: 5 },
      user: { userInfo: { firstName: 'A', lastName: 'B' } },
    },
    /decimal string/,
  ],
])('the fake refuses an event LinkedIn refuses (%#)', (element, reason) => {
  expect(eventError(element, Date.now())).toMatch(reason);
});

test('the fake serves a version from its month until its sunset: 202511 stopped on 2026-11-16, a future month is not out yet', () => {
  expect(isActiveVersion('202511', new Date('2026-11-15T12:00:00Z'))).toBe(true);
  expect(isActiveVersion('202511', new Date('2026-11-16T00:00:00Z'))).toBe(false);
  expect(isActiveVersion('202610', new Date('2026-11-28T00:00:00Z'))).toBe(true);
  expect(isActiveVersion('202701', new Date('2026-11-28T00:00:00Z'))).toBe(false);
  expect(isActiveVersion('20261101', new Date('2026-11-28T00:00:00Z'))).toBe(false);
});

test.each([
  [401, { status: 401, serviceErrorCode: 65601, code: 'REVOKED_ACCESS_TOKEN', message: 'revoked' }, 'needs_reauth'],
  [400, { error: 'invalid_grant', error_description: 'expired' }, 'needs_reauth'],
  [429, { status: 429, code: 'TOO_MANY_REQUESTS', message: 'throttle' }, 'rate_limited'],
  [426, { status: 426, code: 'NONEXISTENT_VERSION', message: 'Requested version 202511 is not active' }, 'invalid'],
  [400, { status: 400, code: 'VERSION_MISSING', message: 'A version must be present.' }, 'invalid'],
  [403, { status: 403, code: 'ACCESS_DENIED', message: 'no' }, 'forbidden'],
  [502, {}, 'retryable'],
  [400, { status: 400, message: 'bad' }, 'invalid'],
])('Errors: HTTP %i %j → %s', (status, body, kind) => {
  expect(linkedinAdsError(status, body).code).toBe(kind);
  expect(LINKEDIN_ADS_ERRORS.at(-1)!.status).toBeUndefined();
});
