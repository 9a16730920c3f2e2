import type { PinnedVersion } from '@/lib/server/connectors/pinnedVersion';

/** The version we pin (tests/unit/apiVersions.test.ts warns 60 days before its sunset). */
export const META_GRAPH_VERSION = {
  api: 'Meta Graph and Marketing API (Facebook Login, ad accounts, Insights, Conversions API)',
  version: 'v27.0',
  // Released 2026-11-04; expiration "TBD" in Meta's table (v25.0 expires 2027-02-23, v24.0 expired 2026-11-10).
  sunset: null,
  source: 'https://developers.facebook.com/documentation/ads-commerce/marketing-api/marketing-api-changelog/versions',
} as const satisfies PinnedVersion;

/** Versions we have left, with their sunsets: never to be pinned again once the date is near. */
export const META_VERSIONS_LEFT = [
  { version: 'v24.0', sunset: '2026-11-10' },
  { version: 'v25.0', sunset: '2027-02-23' },
] as const;
