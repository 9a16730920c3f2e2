/**
 * The platforms we connect, what each one can be, and how its account is authorized. Shared by the
 * browser and the server; no secrets and no SDKs here.
 */
export const PLATFORMS = ['google_ads', 'meta_ads', 'microsoft_ads', 'bigquery', 'mixpanel'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Ad platforms are authorized with OAuth; so is BigQuery (or with a service-account key). */
export type OAuthProvider = 'google' | 'meta' | 'microsoft';
export const OAUTH_PLATFORMS = ['google_ads', 'meta_ads', 'microsoft_ads', 'bigquery'] as const;
export type OAuthPlatform = (typeof OAUTH_PLATFORMS)[number];

/** A source is an ad account ad data is read from; a destination receives ad data or conversions. */
export const INTEGRATION_KINDS = ['source', 'destination'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

export const PLATFORM_LABELS: Record<Platform, string> = {
  google_ads: 'Google Ads',
  meta_ads: 'Meta Ads',
  microsoft_ads: 'Microsoft Advertising',
  bigquery: 'BigQuery',
  mixpanel: 'Mixpanel',
};

export const PROVIDER_OF: Record<OAuthPlatform, OAuthProvider> = {
  google_ads: 'google',
  bigquery: 'google',
  meta_ads: 'meta',
  microsoft_ads: 'microsoft',
};

/** Which platforms each kind may be. */
export const PLATFORMS_OF_KIND: Record<IntegrationKind, readonly Platform[]> = {
  source: ['google_ads', 'meta_ads', 'microsoft_ads'],
  destination: ['bigquery', 'mixpanel', 'google_ads', 'meta_ads', 'microsoft_ads'],
};

export const AD_PLATFORMS = ['google_ads', 'meta_ads', 'microsoft_ads'] as const;
export type AdPlatform = (typeof AD_PLATFORMS)[number];

export function isOAuthPlatform(platform: Platform): platform is OAuthPlatform {
  return (OAUTH_PLATFORMS as readonly string[]).includes(platform);
}

/**
 * The fixed return route a provider sends the browser back to (a provider only redirects to
 * registered URLs, so these are global routes): ad accounts as sources come back to /addSource, ad
 * accounts as conversion destinations to /addConversionDestination, BigQuery to /bigquery.
 */
export function returnPathOf(kind: IntegrationKind, platform: OAuthPlatform, reauth: boolean): string {
  return reauth ? REAUTH_PATH_OF[PROVIDER_OF[platform]] : CONSENT_PATH_OF[platform][kind];
}

const AD_CONSENT_PATHS: Record<IntegrationKind, string> = { source: '/addSource', destination: '/addConversionDestination' };
const CONSENT_PATH_OF: Record<OAuthPlatform, Record<IntegrationKind, string>> = {
  google_ads: AD_CONSENT_PATHS,
  meta_ads: AD_CONSENT_PATHS,
  microsoft_ads: AD_CONSENT_PATHS,
  bigquery: { source: '/bigquery', destination: '/bigquery' },
};
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

/** The start route of each ad platform's consent, under /{orgId}. */
export const START_ROUTE_OF: Record<OAuthPlatform, string> = {
  google_ads: 'GoogleAds',
  bigquery: 'GoogleAds',
  meta_ads: 'MetaAds',
  microsoft_ads: 'MicrosoftAds',
};

/** The configuration page of an object. */
export function configurationPathOf(orgId: string, kind: IntegrationKind, id: string, platform: Platform): string {
  const org = `/${encodeURIComponent(orgId)}`;
  if (kind === 'destination') return `${org}/destination/${encodeURIComponent(id)}/configuration`;
  const segment = { google_ads: 'google', meta_ads: 'meta', microsoft_ads: 'microsoft' }[platform as AdPlatform];
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

export const TARGET_LABEL: Record<AdPlatform, string> = {
  google_ads: 'Conversion action',
  meta_ads: 'Pixel',
  microsoft_ads: 'Conversion goal',
};

export const MIXPANEL_RESIDENCIES = ['US', 'EU', 'IN'] as const;
export type MixpanelResidency = (typeof MIXPANEL_RESIDENCIES)[number];
