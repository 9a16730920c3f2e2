import { DATA_MANAGER_VERSION, GOOGLE_ADS_VERSION } from '@/lib/server/connectors/google_ads/version';
import { META_GRAPH_VERSION, META_VERSIONS_LEFT } from '@/lib/server/connectors/meta_ads/version';
import { MICROSOFT_ADS_VERSION } from '@/lib/server/connectors/microsoft_ads/version';
import { LINKEDIN_ADS_VERSION, LINKEDIN_VERSIONS_LEFT } from '@/lib/server/connectors/linkedin_ads/version';
import type { PinnedVersion } from '@/lib/server/connectors/pinnedVersion';
import { STRIPE_VERSION } from '@/lib/server/connectors/stripe/version';
import { TIKTOK_ADS_VERSION } from '@/lib/server/connectors/tiktok_ads/version';

/**
 * Every platform API version we pin, listed from the connector folders (each folder's version.ts says
 * which version, its sunset when published, and where that is published). The connectors' config files
 * and the fakes build their URLs from their folder's version; tests/unit/apiVersions.test.ts fails 60 days
 * before any sunset below, so a move to a newer version is planned months ahead, never forced overnight.
 */
export const API_VERSIONS = {
  meta: META_GRAPH_VERSION,
  googleAds: GOOGLE_ADS_VERSION,
  dataManager: DATA_MANAGER_VERSION,
  microsoftAds: MICROSOFT_ADS_VERSION,
  linkedinAds: LINKEDIN_ADS_VERSION,
  tiktokAds: TIKTOK_ADS_VERSION,
  stripe: STRIPE_VERSION,
} as const satisfies Record<string, PinnedVersion>;

export type VersionedPlatform = keyof typeof API_VERSIONS;

/**
 * Versions we have left, with the sunset each one has: a version listed here must never be pinned
 * again once its date is near (the unit test checks the pinned versions against this list too).
 */
export const KNOWN_SUNSETS: ReadonlyArray<{ platform: VersionedPlatform; version: string; sunset: string }> = [
  ...META_VERSIONS_LEFT.map((left) => ({ platform: 'meta' as const, ...left })),
  ...LINKEDIN_VERSIONS_LEFT.map((left) => ({ platform: 'linkedinAds' as const, ...left })),
];

/** A pinned version's sunset: its own, else one known for that version, else null. */
export function sunsetOf(platform: VersionedPlatform): string | null {
  const pinned: PinnedVersion = API_VERSIONS[platform];
  return pinned.sunset ?? KNOWN_SUNSETS.find((known) => known.platform === platform && known.version === pinned.version)?.sunset ?? null;
}
