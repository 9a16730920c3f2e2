import { bigqueryRecord } from '@/lib/server/connectors/bigquery/platform';
import { googleAdsRecord } from '@/lib/server/connectors/google_ads/platform';
import { metaAdsRecord } from '@/lib/server/connectors/meta_ads/platform';
import { microsoftAdsRecord } from '@/lib/server/connectors/microsoft_ads/platform';
import { linkedinAdsRecord } from '@/lib/server/connectors/linkedin_ads/platform';
import { mixpanelRecord } from '@/lib/server/connectors/mixpanel/platform';
import { tiktokAdsRecord } from '@/lib/server/connectors/tiktok_ads/platform';
import type { CatalogueEntry, IntegrationKind } from '@/lib/shared/integrations/catalogueEntry';

/**
 * The platforms we connect, what each one can be, and how its account is authorized: the list of the
 * catalogue records (CATALOGUE), from which every list and map below is derived. Each record lives in its
 * connector's folder (lib/server/connectors/<platform>/platform.ts, plain data); this module is shared by the
 * browser and the server, so no secrets and no SDKs here. Adding a platform adds its folder and one line
 * here (docs/architecture/recipes.md).
 */

export { INTEGRATION_KINDS, type IntegrationKind } from '@/lib/shared/integrations/catalogueEntry';

/** Every platform, in the order the pages list them: each record is its connector folder's platform.ts. */
export const CATALOGUE = {
  google_ads: googleAdsRecord,
  meta_ads: metaAdsRecord,
  microsoft_ads: microsoftAdsRecord,
  linkedin_ads: linkedinAdsRecord,
  tiktok_ads: tiktokAdsRecord,
  bigquery: bigqueryRecord,
  mixpanel: mixpanelRecord,
} as const satisfies Record<string, CatalogueEntry>;

type Catalogue = typeof CATALOGUE;
export type Platform = keyof Catalogue;
export type AdPlatform = { [P in Platform]: Catalogue[P] extends { ad: object } ? P : never }[Platform];
/** A platform whose rows or events can be read as a conversion source (BigQuery, Mixpanel). */
export type WarehousePlatform = { [P in Platform]: Catalogue[P] extends { conversionSource: true } ? P : never }[Platform];
/** A destination of ad performance: a connection writes there (BigQuery, Mixpanel). */
export type AdDataDestination = { [P in Platform]: Catalogue[P] extends { adData: object } ? P : never }[Platform];
export type OAuthPlatform = { [P in Platform]: Catalogue[P] extends { oauth: object } ? P : never }[Platform];
/** Whose consent a platform uses: Google's serves Google Ads and BigQuery. */
export type OAuthProvider = Catalogue[OAuthPlatform]['oauth']['provider'];

const entries = Object.entries(CATALOGUE) as Array<[Platform, CatalogueEntry]>;
/** A non-empty tuple, as zod's enums want it. */
const tuple = <T extends string>(values: T[]) => values as unknown as readonly [T, ...T[]];
const mapOf = <K extends string, V>(pick: (entry: CatalogueEntry) => V | undefined) =>
  Object.fromEntries(entries.flatMap(([platform, entry]) => (pick(entry) === undefined ? [] : [[platform, pick(entry)]]))) as Record<K, V>;

export const PLATFORMS = tuple(entries.map(([platform]) => platform));
export const AD_PLATFORMS = tuple(entries.filter(([, entry]) => entry.ad).map(([platform]) => platform as AdPlatform));
export const WAREHOUSE_PLATFORMS = tuple(
  entries.filter(([, entry]) => entry.conversionSource).map(([platform]) => platform as WarehousePlatform),
);
export const OAUTH_PLATFORMS = tuple(entries.filter(([, entry]) => entry.oauth).map(([platform]) => platform as OAuthPlatform));

export const PLATFORM_LABELS = mapOf<Platform, string>((entry) => entry.label);
export const PROVIDER_OF = mapOf<OAuthPlatform, OAuthProvider>((entry) => entry.oauth?.provider as OAuthProvider | undefined);
/** The start route of each platform's consent, under /{orgId}. */
export const START_ROUTE_OF = mapOf<OAuthPlatform, string>((entry) => entry.oauth?.startRoute);
export const TARGET_LABEL = mapOf<AdPlatform, string>((entry) => entry.ad?.targetLabel);
/** The page segment of each ad platform's source and app pages (google, meta, microsoft). */
export const SEGMENT_OF = mapOf<AdPlatform, string>((entry) => entry.ad?.sourceSegment);
/** Each ad platform's short name in sentences. */
export const SHORT_NAME_OF = mapOf<AdPlatform, string>((entry) => entry.ad?.shortName);
/** Platforms restate recent days (late conversions, invalid clicks): each run re-reads this many. */
export const DEFAULT_LOOKBACK_DAYS = mapOf<AdPlatform, number>((entry) => entry.ad?.lookbackDays);
/** How far back each platform keeps daily performance (a backfill cannot start earlier). */
export const HISTORY_MONTHS = mapOf<AdPlatform, number>((entry) => entry.ad?.history.months);
export const HISTORY_LABELS = mapOf<AdPlatform, string>((entry) => entry.ad?.history.label);
/** Hours after a day ends until the platform's figures for it are final (docs/PLATFORMS.md). */
export const PLATFORM_LAG_HOURS = mapOf<AdPlatform, number>((entry) => entry.ad?.lagHours);
/** `utm_source` of each ad platform's ad-spend events in Mixpanel. */
export const UTM_SOURCE = mapOf<AdPlatform, string>((entry) => entry.ad?.utmSource);
/** What a conversion's target is called on each platform that takes conversions. */
export const CONVERSION_TARGET_LABEL = mapOf<AdPlatform | 'mixpanel' | 'bigquery', string>(
  (entry) => entry.ad?.targetLabel ?? entry.conversionTarget,
);
/** Platforms by name in a sentence: "Google Ads, Meta Ads or Microsoft Advertising". */
export const inWords = (platforms: readonly Platform[]) =>
  platforms
    .map((platform) => PLATFORM_LABELS[platform])
    .join(', ')
    .replace(/, ([^,]*)$/, ' or $1');
export const AD_PLATFORMS_IN_WORDS = inWords(AD_PLATFORMS);
/** The destinations a connection writes ad performance to (BigQuery, Mixpanel), and them in a sentence. */
export const AD_DATA_DESTINATIONS = PLATFORMS.filter((platform): platform is AdDataDestination =>
  Boolean((CATALOGUE[platform] as CatalogueEntry).adData),
);
export const AD_DATA_DESTINATIONS_IN_WORDS = inWords(AD_DATA_DESTINATIONS);
export const isAdDataDestination = (platform: Platform): platform is AdDataDestination =>
  (AD_DATA_DESTINATIONS as readonly Platform[]).includes(platform);
/** A connection to it writes a table of a picked project and dataset (else the project its login names). */
export const writesTables = (platform: Platform): boolean => (CATALOGUE[platform] as CatalogueEntry).adData?.writesTo === 'table';

/** What one of a platform's picked accounts is called (`ad account` unless its record says), or null when it picks none. */
export function accountNounOf(platform: Platform): { one: string; many: string } | null {
  const noun = (CATALOGUE[platform] as CatalogueEntry).accountNoun;
  return noun === undefined ? { one: 'account', many: 'accounts' } : noun;
}

/** Whether a test event to this platform may carry the code its own test tool gives (Meta's test_event_code). */
export const takesTestEventCode = (platform: Platform): boolean => Boolean((CATALOGUE[platform] as CatalogueEntry).ad?.testEventCode);

/** Whether a source login of this platform may also serve as a conversion destination (no second consent). */
export const reusesLogin = (platform: Platform): boolean => Boolean((CATALOGUE[platform] as CatalogueEntry).ad?.reusableLogin);

/** The ad platforms that take an address as one identifier (all of its parts, or none). */
export const ADDRESS_AS_ONE_IDENTIFIER = AD_PLATFORMS.filter(
  (platform) => (CATALOGUE[platform] as CatalogueEntry).ad?.addressAsOneIdentifier,
);

type CountedNotes = NonNullable<CatalogueEntry['ad']>['countedNotes'];

/** A platform's counted note with its blanks filled in; null for a note it has none of (`received`: it reports none). */
export function countedNote(platform: AdPlatform, note: keyof CountedNotes, blanks: Record<string, string | number> = {}): string | null {
  const text = (CATALOGUE[platform].ad.countedNotes as CountedNotes)[note];
  return text === undefined ? null : text.replace(/\{(\w+)\}/g, (_, name: string) => String(blanks[name] ?? ''));
}

/** An ad platform: it has ad accounts, and conversions go to one of their targets. */
export const isAdPlatform = (platform: string): platform is AdPlatform => (AD_PLATFORMS as readonly string[]).includes(platform);

/** A platform that can be read as a conversion source (a warehouse source), with a destination's login. */
export const isWarehousePlatform = (platform: string): platform is WarehousePlatform =>
  (WAREHOUSE_PLATFORMS as readonly string[]).includes(platform);

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

const reauthPathOf = (provider: OAuthProvider) => `/${provider}Reauth` as const;
const REAUTH_PATH_OF = Object.fromEntries(Object.values(PROVIDER_OF).map((provider) => [provider, reauthPathOf(provider)])) as Record<
  OAuthProvider,
  ReturnType<typeof reauthPathOf>
>;

/**
 * Every route a provider may return to; the server accepts no other redirect URI. /addDestination and
 * /addConversionSource are registered return pages no record uses today (kept: the providers know them).
 */
export const RETURN_PATHS = tuple([
  ...new Set([
    ...entries.flatMap(([, entry]) => (entry.oauth ? Object.values(entry.oauth.consentPath) : [])),
    '/addDestination',
    '/addConversionSource',
    ...Object.values(REAUTH_PATH_OF),
  ]),
]);

/** The start routes of the consents, under /{orgId} (GoogleAds, MetaAds, MicrosoftAds). */
export const START_ROUTES = tuple([...new Set(Object.values(START_ROUTE_OF))]);

/** The platform a start route opens when no remembered flow names one (the first in the catalogue: Google Ads before BigQuery); null for no start route. */
export function platformOfStartRoute(route: unknown): OAuthPlatform | null {
  return OAUTH_PLATFORMS.find((platform) => START_ROUTE_OF[platform] === route) ?? null;
}

/** The page layout of a platform's consent start. */
export const startLayoutOf = (platform: OAuthPlatform) => (CATALOGUE[platform] as CatalogueEntry).oauth!.startLayout;

/** The ad platform of a source or app page segment (google, meta, microsoft); null for any other. */
export function platformOfSegment(segment: unknown): AdPlatform | null {
  return AD_PLATFORMS.find((platform) => SEGMENT_OF[platform] === segment) ?? null;
}

/** The configuration page of an object. */
export function configurationPathOf(orgId: string, kind: IntegrationKind, id: string, platform: Platform): string {
  const org = `/${encodeURIComponent(orgId)}`;
  if (kind === 'destination') return `${org}/destination/${encodeURIComponent(id)}/configuration`;
  const segment = isAdPlatform(platform) ? SEGMENT_OF[platform] : undefined;
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
  /** A destination on the login of this source (one login serves both directions; reconnecting either mends both). */
  loginSourceId?: string;
}

/** What still uses an object: it cannot be deleted until these let go of it. */
export interface Usage {
  connections: Array<{ id: string; name: string }>;
  conversions: Array<{ id: string; name: string }>;
  apps: Array<{ id: string; name: string }>;
  /** The other sources and destinations on the same login: they do not block a delete, they keep the login. */
  sharedLogin?: Array<{ id: string; kind: IntegrationKind; name: string }>;
}

/** A conversion target of a destination account: Meta pixel, Google Ads conversion action, Microsoft goal. */
export interface ConversionTarget {
  id: string;
  name: string;
}

export const MIXPANEL_RESIDENCIES = ['US', 'EU', 'IN'] as const;
export type MixpanelResidency = (typeof MIXPANEL_RESIDENCIES)[number];
