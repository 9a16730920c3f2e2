/** @jest-environment node */
import {
  AD_PLATFORMS_IN_WORDS,
  configurationPathOf,
  platformOfSegment,
  platformOfStartRoute,
  RETURN_PATHS,
  returnPathOf,
  START_ROUTES,
} from '@/lib/shared/integrations/platforms';

// What CATALOGUE derives is the URL contract of docs/PRODUCT.md: the same paths as when each was written by hand.
test('the registered return paths are exactly the contract’s', () => {
  expect([...RETURN_PATHS].sort()).toEqual(
    [
      '/addSource',
      '/addDestination',
      '/addConversionSource',
      '/addConversionDestination',
      '/bigquery',
      '/googleReauth',
      '/metaReauth',
      '/microsoftReauth',
      '/linkedinReauth',
      '/tiktokReauth',
    ].sort(),
  );
  expect(returnPathOf('destination', 'bigquery', true)).toBe('/googleReauth');
  expect(returnPathOf('source', 'microsoft_ads', true)).toBe('/microsoftReauth');
  expect(returnPathOf('destination', 'meta_ads', false)).toBe('/addConversionDestination');
});

test('consent start routes and page segments name the platforms, and nothing else', () => {
  expect(START_ROUTES).toEqual(['GoogleAds', 'MetaAds', 'MicrosoftAds', 'LinkedInAds', 'TikTokAds']);
  expect(platformOfStartRoute('LinkedInAds')).toBe('linkedin_ads');
  expect(platformOfStartRoute('TikTokAds')).toBe('tiktok_ads');
  expect(platformOfStartRoute('GoogleAds')).toBe('google_ads');
  expect(platformOfStartRoute('MicrosoftAds')).toBe('microsoft_ads');
  expect(platformOfStartRoute('settings')).toBeNull();
  expect(['google', 'meta', 'microsoft', 'linkedin', 'tiktok', 'bigquery', 'x'].map(platformOfSegment)).toEqual([
    'google_ads',
    'meta_ads',
    'microsoft_ads',
    'linkedin_ads',
    'tiktok_ads',
    null,
    null,
  ]);
  expect(configurationPathOf('acme', 'source', 's1', 'microsoft_ads')).toBe('/acme/source/s1/microsoft/configuration');
  expect(AD_PLATFORMS_IN_WORDS).toBe('Google Ads, Meta Ads, Microsoft Advertising, LinkedIn Ads or TikTok Ads');
});
