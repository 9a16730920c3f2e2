import type { PinnedVersion } from '@/lib/server/connectors/pinnedVersion';

/** The version we pin (tests/unit/apiVersions.test.ts warns 60 days before its sunset). */
export const TIKTOK_ADS_VERSION = {
  api: 'TikTok API for Business (OAuth, advertisers, pixels, integrated reports, Events API 2.0)',
  version: 'v1.3',
  // TikTok publishes no end for v1.3 (its changelog lists v1.2's retirement only); none pinned until it does.
  sunset: null,
  source: 'https://business-api.tiktok.com/portal/docs?id=1740579480076290',
} as const satisfies PinnedVersion;
