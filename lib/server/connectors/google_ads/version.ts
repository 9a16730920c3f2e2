import type { PinnedVersion } from '@/lib/server/connectors/pinnedVersion';

/** The version we pin (tests/unit/apiVersions.test.ts warns 60 days before its sunset). */
export const GOOGLE_ADS_VERSION = {
  api: 'Google Ads API (reports, accounts, conversion actions)',
  version: 'v26',
  // Released October 2026; Google's published schedule projects its sunset for November 2027 (the 2026
  // release table, https://developers.google.com/ads/blog/posts/2025/09/more-frequent-releases-coming-for;
  // confirmed dates land in the sunset-dates page). Only the month is given: its first day is recorded, so
  // the 60-day warning fires early rather than late.
  sunset: '2027-11-01',
  source: 'https://developers.google.com/google-ads/api/docs/sunset-dates',
} as const satisfies PinnedVersion;

/** The version we pin (tests/unit/apiVersions.test.ts warns 60 days before its sunset). */
export const DATA_MANAGER_VERSION = {
  api: 'Google Data Manager API (conversions)',
  version: 'v1',
  sunset: null,
  source: 'https://developers.google.com/data-manager/api/reference/rest',
} as const satisfies PinnedVersion;
