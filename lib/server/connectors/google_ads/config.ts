import { API_VERSIONS } from '@/lib/server/connectors/versions';

/** The Google Ads API, the Data Manager API (conversions) and the scopes a Google Ads login asks for. */
export const googleAdsConfig = () => ({
  apiUrl: process.env.GOOGLE_ADS_API_URL || 'https://googleads.googleapis.com',
  version: API_VERSIONS.googleAds.version,
  dataManagerUrl: process.env.GOOGLE_DATA_MANAGER_API_URL || `https://datamanager.googleapis.com/${API_VERSIONS.dataManager.version}`,
  scopes: ['https://www.googleapis.com/auth/adwords', 'https://www.googleapis.com/auth/datamanager'],
});
