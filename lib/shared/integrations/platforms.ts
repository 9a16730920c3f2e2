/**
 * The platforms we connect, what each one can be, and how its account is authorized: one record per
 * platform (CATALOGUE), from which every list and map below is derived. Shared by the browser and the
 * server; no secrets and no SDKs here. Adding a platform adds one record here (docs/ARCHITECTURE.md).
 */

/** A source is an ad account ad data is read from; a destination receives ad data or conversions. */
export const INTEGRATION_KINDS = ['source', 'destination'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

/** Ad platforms are authorized with OAuth; so is BigQuery (or with a service-account key). */
export type OAuthProvider = 'google' | 'meta' | 'microsoft';

interface CatalogueEntry {
  label: string;
  /** What it may be: a source of ad data, a destination (of ad data or conversions). */
  kinds: readonly IntegrationKind[];
  /** An ad platform: ad accounts, conversion targets (named `targetLabel`), a source page segment. */
  ad?: { targetLabel: string; sourceSegment: string };
  /** What receives conversions when it is not an ad platform (an app's events imported into Mixpanel, appended to a BigQuery table). */
  conversionTarget?: string;
  /** Connected through an OAuth consent: whose, started at /{orgId}/{startRoute}, returning to `consentPath`. */
  oauth?: { provider: OAuthProvider; startRoute: string; consentPath: Record<IntegrationKind, string> };
}

const AD_CONSENT_PATHS: Record<IntegrationKind, string> = { source: '/addSource', destination: '/addConversionDestination' };

export const CATALOGUE = {
  google_ads: {
    label: 'Google Ads',
    kinds: ['source', 'destination'],
    ad: { targetLabel: 'Conversion action', sourceSegment: 'google' },
    oauth: { provider: 'google', startRoute: 'GoogleAds', consentPath: AD_CONSENT_PATHS },
  },
  meta_ads: {
    label: 'Meta Ads',
    kinds: ['source', 'destination'],
    ad: { targetLabel: 'Pixel', sourceSegment: 'meta' },
    oauth: { provider: 'meta', startRoute: 'MetaAds', consentPath: AD_CONSENT_PATHS },
  },
  microsoft_ads: {
    label: 'Microsoft Advertising',
    kinds: ['source', 'destination'],
    ad: { targetLabel: 'Conversion goal', sourceSegment: 'microsoft' },
    oauth: { provider: 'microsoft', startRoute: 'MicrosoftAds', consentPath: AD_CONSENT_PATHS },
  },
  bigquery: {
    label: 'BigQuery',
    kinds: ['destination'],
    conversionTarget: 'Table',
    oauth: { provider: 'google', startRoute: 'GoogleAds', consentPath: { source: '/bigquery', destination: '/bigquery' } },
  },
  mixpanel: { label: 'Mixpanel', kinds: ['destination'], conversionTarget: 'Project' },
} as const satisfies Record<string, CatalogueEntry>;

type Catalogue = typeof CATALOGUE;
export type Platform = keyof Catalogue;
export type AdPlatform = { [P in Platform]: Catalogue[P] extends { ad: object } ? P : never }[Platform];
export type OAuthPlatform = { [P in Platform]: Catalogue[P] extends { oauth: object } ? P : never }[Platform];

const entries = Object.entries(CATALOGUE) as Array<[Platform, CatalogueEntry]>;
/** A non-empty tuple, as zod's enums want it. */
const tuple = <T extends string>(values: T[]) => values as unknown as readonly [T, ...T[]];
const mapOf = <K extends string, V>(pick: (entry: CatalogueEntry) => V | undefined) =>
  Object.fromEntries(entries.flatMap(([platform, entry]) => (pick(entry) === undefined ? [] : [[platform, pick(entry)]]))) as Record<K, V>;

export const PLATFORMS = tuple(entries.map(([platform]) => platform));
export const AD_PLATFORMS = tuple(entries.filter(([, entry]) => entry.ad).map(([platform]) => platform as AdPlatform));
export const OAUTH_PLATFORMS = tuple(entries.filter(([, entry]) => entry.oauth).map(([platform]) => platform as OAuthPlatform));

export const PLATFORM_LABELS = mapOf<Platform, string>((entry) => entry.label);
export const PROVIDER_OF = mapOf<OAuthPlatform, OAuthProvider>((entry) => entry.oauth?.provider);
/** The start route of each platform's consent, under /{orgId}. */
export const START_ROUTE_OF = mapOf<OAuthPlatform, string>((entry) => entry.oauth?.startRoute);
export const TARGET_LABEL = mapOf<AdPlatform, string>((entry) => entry.ad?.targetLabel);
/** What a conversion's target is called on each platform that takes conversions. */
export const CONVERSION_TARGET_LABEL = mapOf<AdPlatform | 'mixpanel' | 'bigquery', string>(
  (entry) => entry.ad?.targetLabel ?? entry.conversionTarget,
);
/** An ad platform: it has ad accounts, and conversions go to one of their targets. */
export const isAdPlatform = (platform: string): platform is AdPlatform => (AD_PLATFORMS as readonly string[]).includes(platform);

/** Which platforms each kind may be (destinations list warehouses and analytics first). */
export const PLATFORMS_OF_KIND: Record<IntegrationKind, readonly Platform[]> = {
  source: PLATFORMS.filter((platform) => CATALOGUE[platform].kinds.includes('source' as never)),
  destination: [...PLATFORMS.filter((platform) => !('ad' in CATALOGUE[platform])), ...AD_PLATFORMS],
};

export function isOAuthPlatform(platform: Platform): platform is OAuthPlatform {
  return 'oauth' in CATALOGUE[platform];
}

/**
 * The fixed return route a provider sends the browser back to (a provider only redirects to
 * registered URLs, so these are global routes): ad accounts as sources come back to /addSource, ad
 * accounts as conversion destinations to /addConversionDestination, BigQuery to /bigquery.
 */
export function returnPathOf(kind: IntegrationKind, platform: OAuthPlatform, reauth: boolean): string {
  return reauth ? REAUTH_PATH_OF[PROVIDER_OF[platform]] : CATALOGUE[platform].oauth.consentPath[kind];
}

const REAUTH_PATH_OF: Record<OAuthProvider, string> = { google: '/googleReauth', meta: '/metaReauth', microsoft: '/microsoftReauth' };

/** Every route a provider may return to; the server accepts no other redirect URI. */
export const RETURN_PATHS = [
  '/addSource',
  '/addDestination',
  '/addConversionSource',
  '/addConversionDestination',
  '/bigquery',
  '/googleReauth',
  '/metaReauth',
  '/microsoftReauth',
] as const;

/** The configuration page of an object. */
export function configurationPathOf(orgId: string, kind: IntegrationKind, id: string, platform: Platform): string {
  const org = `/${encodeURIComponent(orgId)}`;
  if (kind === 'destination') return `${org}/destination/${encodeURIComponent(id)}/configuration`;
  const segment = (CATALOGUE[platform] as CatalogueEntry).ad?.sourceSegment;
  return `${org}/source/${encodeURIComponent(id)}/${segment}/configuration`;
}

export type IntegrationStatus = 'active' | 'needs_reauth';

/** An ad account a login can reach (a Google Ads customer, a Meta ad account, a Microsoft account). */
export interface AdAccount {
  id: string;
  name: string;
  currency?: string | null;
  /** A Google Ads client reached through this manager (its id is sent as login-customer-id). */
  managerId?: string | null;
  /** A Google Ads manager account: it holds clients but no ads of its own. */
  isManager?: boolean;
}

/** What the browser sees of a source or destination: never a credential. */
export interface Integration {
  id: string;
  kind: IntegrationKind;
  platform: Platform;
  name: string;
  accountName: string;
  status: IntegrationStatus;
  connectedAt: string;
  connectedBy: string | null;
  /** Ad accounts picked for this source or destination. */
  accounts: AdAccount[];
  /** Mixpanel: project id and data residency; BigQuery: project id. */
  settings: Record<string, string>;
}

/** What still uses an object: it cannot be deleted until these let go of it. */
export interface Usage {
  connections: Array<{ id: string; name: string }>;
  conversions: Array<{ id: string; name: string }>;
  apps: Array<{ id: string; name: string }>;
}

/** A conversion target of a destination account: Meta pixel, Google Ads conversion action, Microsoft goal. */
export interface ConversionTarget {
  id: string;
  name: string;
}

export const MIXPANEL_RESIDENCIES = ['US', 'EU', 'IN'] as const;
export type MixpanelResidency = (typeof MIXPANEL_RESIDENCIES)[number];
