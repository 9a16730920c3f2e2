import { DATA_MANAGER_VERSION, GOOGLE_ADS_VERSION } from '@/lib/server/connectors/google_ads/version';
import { count, link, type Variable } from '@/lib/server/envVariable';

/** The Google Ads API, the Data Manager API (conversions) and the scopes a Google Ads login asks for. */
export const googleAdsConfig = () => ({
  apiUrl: process.env.GOOGLE_ADS_API_URL || 'https://googleads.googleapis.com',
  version: GOOGLE_ADS_VERSION.version,
  dataManagerUrl: process.env.GOOGLE_DATA_MANAGER_API_URL || `https://datamanager.googleapis.com/${DATA_MANAGER_VERSION.version}`,
  scopes: ['https://www.googleapis.com/auth/adwords', 'https://www.googleapis.com/auth/datamanager'],
});

/** Its configuration variables (lib/server/env.ts lists every folder's; .env.example documents them): where the Google Ads and Data Manager APIs live, and how many Data Manager requests a minute we make. */
export const GOOGLE_ADS_VARIABLES = {
  GOOGLE_ADS_API_URL: link,
  GOOGLE_DATA_MANAGER_API_URL: link,
  DATAMANAGER_REQUESTS_PER_MINUTE: count,
} as const satisfies Record<string, Variable>;
