import type { PinnedVersion } from '@/lib/server/connectors/pinnedVersion';

/** The version we pin (tests/unit/apiVersions.test.ts warns 60 days before its sunset). */
export const MICROSOFT_ADS_VERSION = {
  api: 'Microsoft Advertising REST API (Customer Management, Campaign Management, Reporting)',
  version: 'v13',
  // The SOAP endpoints of v13 end on 2027-01-31 ("Migrate to REST"); we call REST only, which has no published end.
  sunset: null,
  source: 'https://learn.microsoft.com/en-us/advertising/guides/migrate-to-rest',
} as const satisfies PinnedVersion;
