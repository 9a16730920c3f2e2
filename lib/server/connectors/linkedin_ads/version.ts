import type { PinnedVersion } from '@/lib/server/connectors/pinnedVersion';

/**
 * The version we pin (tests/unit/apiVersions.test.ts warns 60 days before its sunset), sent as the
 * `LinkedIn-Version: YYYYMM` header of every call (LinkedIn versions its APIs by header, not by path).
 */
export const LINKEDIN_ADS_VERSION = {
  api: 'LinkedIn Marketing API (adAccounts, adAnalytics, conversions, conversionEvents)',
  version: '202610',
  // Monthly versions are "supported and stable for a minimum of one year before sunset"; LinkedIn's notices
  // so far sunset version YYYYMM in the same month a year on (202511 on 2026-11-16). 202610's notice is not out:
  // the first day of its month a year on is recorded, so the 60-day warning fires early rather than late.
  sunset: '2027-10-01',
  source: 'https://learn.microsoft.com/en-us/linkedin/marketing/versioning',
} as const satisfies PinnedVersion;

/** Versions we have left (or never pinned and now gone), with their sunsets: never to be pinned again. */
export const LINKEDIN_VERSIONS_LEFT = [{ version: '202511', sunset: '2026-11-16' }] as const;
