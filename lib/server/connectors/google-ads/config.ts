/** The Google Ads API (v26), the Data Manager API (conversions) and the scopes a Google Ads login asks for. */
export const googleAdsConfig = () => ({
  apiUrl: process.env.GOOGLE_ADS_API_URL || 'https://googleads.googleapis.com',
  version: 'v26',
  dataManagerUrl: process.env.GOOGLE_DATA_MANAGER_API_URL || 'https://datamanager.googleapis.com/v1',
  scopes: ['https://www.googleapis.com/auth/adwords', 'https://www.googleapis.com/auth/datamanager'],
});
