/** The Google Ads API (v26) and the scopes a Google Ads login asks for. */
export const googleAdsConfig = () => ({
  apiUrl: process.env.GOOGLE_ADS_API_URL || 'https://googleads.googleapis.com',
  version: 'v26',
  scopes: ['https://www.googleapis.com/auth/adwords', 'https://www.googleapis.com/auth/datamanager'],
});
