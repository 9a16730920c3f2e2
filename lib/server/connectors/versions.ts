/**
 * Every platform API version we pin, in one place, with the date the platform stops serving it when
 * that date is published. The connectors' config files and the sandbox build their URLs from here;
 * tests/unit/apiVersions.test.ts fails 60 days before any sunset below, so a move to a newer version
 * is planned months ahead, never forced overnight.
 */

export interface PinnedVersion {
  /** What we call. */
  api: string;
  /** The version as it appears in the platform's URLs. */
  version: string;
  /** The last day the platform serves this version (YYYY-MM-DD), or null while none is published. */
  sunset: string | null;
  /** Where the sunset (or its absence) is published. */
  source: string;
}

export const API_VERSIONS = {
  meta: {
    api: 'Meta Graph and Marketing API (Facebook Login, ad accounts, Insights, Conversions API)',
    version: 'v27.0',
    // Released 2026-11-04; expiration "TBD" in Meta's table (v25.0 expires 2027-02-23, v24.0 expired 2026-11-10).
    sunset: null,
    source: 'https://developers.facebook.com/documentation/ads-commerce/marketing-api/marketing-api-changelog/versions',
  },
  googleAds: {
    api: 'Google Ads API (reports, accounts, conversion actions)',
    version: 'v26',
    // Released October 2026; Google's published schedule projects its sunset for November 2027 (the 2026
    // release table, https://developers.google.com/ads/blog/posts/2025/09/more-frequent-releases-coming-for;
    // confirmed dates land in the sunset-dates page). Only the month is given: its first day is recorded, so
    // the 60-day warning fires early rather than late.
    sunset: '2027-11-01',
    source: 'https://developers.google.com/google-ads/api/docs/sunset-dates',
  },
  dataManager: {
    api: 'Google Data Manager API (conversions)',
    version: 'v1',
    sunset: null,
    source: 'https://developers.google.com/data-manager/api/reference/rest',
  },
  microsoftAds: {
    api: 'Microsoft Advertising REST API (Customer Management, Campaign Management, Reporting)',
    version: 'v13',
    // The SOAP endpoints of v13 end on 2027-01-31 ("Migrate to REST"); we call REST only, which has no published end.
    sunset: null,
    source: 'https://learn.microsoft.com/en-us/advertising/guides/migrate-to-rest',
  },
  stripe: {
    api: "Stripe API (a customer's charges: payments as a conversion source)",
    // The version the stripe package pins (node_modules/stripe/cjs/apiVersion.js; our billing client uses it),
    // sent as Stripe-Version: without it each customer's account default decides a charge's shape
    // (https://docs.stripe.com/api-versions: the header, else the SDK's pin, else the account's default).
    version: '2026-10-28.endive',
    // Stripe publishes no end for an API version.
    sunset: null,
    source: 'https://docs.stripe.com/api-versions',
  },
} as const satisfies Record<string, PinnedVersion>;

export type VersionedPlatform = keyof typeof API_VERSIONS;

/**
 * Versions we have left, with the sunset each one has: a version listed here must never be pinned
 * again once its date is near (the unit test checks the pinned versions against this list too).
 */
export const KNOWN_SUNSETS: ReadonlyArray<{ platform: VersionedPlatform; version: string; sunset: string }> = [
  { platform: 'meta', version: 'v24.0', sunset: '2026-11-10' },
  { platform: 'meta', version: 'v25.0', sunset: '2027-02-23' },
];

/** A pinned version's sunset: its own, else one known for that version, else null. */
export function sunsetOf(platform: VersionedPlatform): string | null {
  const pinned: PinnedVersion = API_VERSIONS[platform];
  return pinned.sunset ?? KNOWN_SUNSETS.find((known) => known.platform === platform && known.version === pinned.version)?.sunset ?? null;
}
