import { API_VERSIONS, KNOWN_SUNSETS, sunsetOf, type VersionedPlatform } from '@/lib/server/connectors/versions';
import { googleAdsConfig } from '@/lib/server/connectors/google_ads/config';
import { metaConfig } from '@/lib/server/connectors/meta_ads/config';
import { microsoftConfig } from '@/lib/server/connectors/microsoft_ads/config';
import { linkedinConfig } from '@/lib/server/connectors/linkedin_ads/config';

// A pinned platform version must be moved well before the platform stops serving it: this test fails
// 60 days ahead of any published sunset, on the real date, so the move is planned, not forced overnight.
const WARNING_DAYS = 60;
const DAY_MS = 24 * 3600 * 1000;
const platforms = Object.keys(API_VERSIONS) as VersionedPlatform[];

test.each(platforms)('%s: the pinned version is more than 60 days from its sunset', (platform) => {
  const sunset = sunsetOf(platform);
  if (sunset === null) return;
  const daysLeft = Math.floor((Date.parse(`${sunset}T00:00:00Z`) - Date.now()) / DAY_MS);
  if (daysLeft <= WARNING_DAYS) {
    throw new Error(
      `${API_VERSIONS[platform].api} ${API_VERSIONS[platform].version} stops on ${sunset} (${daysLeft} days left): move to a newer version in its connector folder's version.ts (${API_VERSIONS[platform].source}).`,
    );
  }
});

test('a sunset date is a calendar day, and a known sunset names a version of its platform', () => {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  for (const platform of platforms) {
    const { sunset } = API_VERSIONS[platform] as { sunset: string | null };
    if (sunset !== null) expect(sunset).toMatch(day);
  }
  for (const known of KNOWN_SUNSETS) {
    expect(known.sunset).toMatch(day);
    expect(platforms).toContain(known.platform);
  }
});

test('a version whose sunset is known counts for it when pinned (v25.0 of Meta stops on 2027-02-23)', () => {
  expect(KNOWN_SUNSETS).toContainEqual({ platform: 'meta', version: 'v25.0', sunset: '2027-02-23' });
  expect(API_VERSIONS.meta.version).toBe('v27.0');
});

test('Google Ads v26 carries its projected sunset (November 2027, its first day), so the 60-day test can fire', () => {
  expect(API_VERSIONS.googleAds.version).toBe('v26');
  expect(sunsetOf('googleAds')).toBe('2027-11-01');
});

test("Microsoft's REST v13 cites Microsoft's migrate-to-REST page (SOAP ends 2027-01-31, REST has no end)", () => {
  expect(API_VERSIONS.microsoftAds.source).toBe('https://learn.microsoft.com/en-us/advertising/guides/migrate-to-rest');
  expect(sunsetOf('microsoftAds')).toBeNull();
});

test('LinkedIn pins a live monthly version (202511 stopped on 2026-11-16) and records the sunset to move before', () => {
  expect(API_VERSIONS.linkedinAds.version).toMatch(/^\d{6}$/);
  expect(KNOWN_SUNSETS).toContainEqual({ platform: 'linkedinAds', version: '202511', sunset: '2026-11-16' });
  expect(API_VERSIONS.linkedinAds.version).not.toBe('202511');
  expect(sunsetOf('linkedinAds')).toBe('2027-10-01');
});

describe('every client builds its URLs from the one pinned version', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    for (const name of Object.keys(process.env)) if (/^(META|GOOGLE|MICROSOFT|LINKEDIN)_/.test(name)) delete process.env[name];
  });
  afterAll(() => {
    process.env = saved;
  });

  test('Meta, Google Ads, Data Manager and Microsoft Advertising', () => {
    expect(metaConfig().graphUrl).toBe(`https://graph.facebook.com/${API_VERSIONS.meta.version}`);
    expect(metaConfig().dialogUrl).toBe(`https://www.facebook.com/${API_VERSIONS.meta.version}/dialog/oauth`);
    expect(googleAdsConfig().version).toBe(API_VERSIONS.googleAds.version);
    expect(googleAdsConfig().dataManagerUrl).toBe(`https://datamanager.googleapis.com/${API_VERSIONS.dataManager.version}`);
    const microsoft = microsoftConfig();
    for (const url of [microsoft.customerManagementUrl, microsoft.campaignManagementUrl, microsoft.reportingUrl]) {
      expect(url.endsWith(`/${API_VERSIONS.microsoftAds.version}`)).toBe(true);
    }
  });

  test('LinkedIn: the real hosts, and the version as the LinkedIn-Version header of every call', () => {
    expect(linkedinConfig().apiUrl).toBe('https://api.linkedin.com');
    expect(linkedinConfig().oauthUrl).toBe('https://www.linkedin.com/oauth/v2');
    expect(linkedinConfig().headers).toEqual({
      'LinkedIn-Version': API_VERSIONS.linkedinAds.version,
      'X-Restli-Protocol-Version': '2.0.0',
    });
  });
});
