/**
 * Where each platform lives and our app's credentials with it. Production uses the real hosts;
 * `npm run dev` and the tests point every URL at the local sandbox (tests/fakes/platforms.ts).
 */
const env = (name: string, fallback: string) => process.env[name] || fallback;

export const googleConfig = () => ({
  clientId: process.env.GOOGLE_OAUTH_CLIENT_ID ?? '',
  clientSecret: process.env.GOOGLE_OAUTH_CLIENT_SECRET ?? '',
  authorizeUrl: env('GOOGLE_OAUTH_AUTHORIZE_URL', 'https://accounts.google.com/o/oauth2/v2/auth'),
  tokenUrl: env('GOOGLE_OAUTH_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
  userInfoUrl: env('GOOGLE_USERINFO_URL', 'https://openidconnect.googleapis.com/v1/userinfo'),
  adsApiUrl: env('GOOGLE_ADS_API_URL', 'https://googleads.googleapis.com'),
  bigQueryApiUrl: env('BIGQUERY_API_URL', 'https://bigquery.googleapis.com'),
});

export const metaConfig = () => ({
  appId: process.env.META_APP_ID ?? '',
  appSecret: process.env.META_APP_SECRET ?? '',
  dialogUrl: env('META_OAUTH_DIALOG_URL', 'https://www.facebook.com/v25.0/dialog/oauth'),
  graphUrl: env('META_GRAPH_API_URL', 'https://graph.facebook.com/v25.0'),
});

export const microsoftConfig = () => ({
  clientId: process.env.MICROSOFT_OAUTH_CLIENT_ID ?? '',
  clientSecret: process.env.MICROSOFT_OAUTH_CLIENT_SECRET ?? '',
  developerToken: process.env.MICROSOFT_ADS_DEVELOPER_TOKEN ?? '',
  loginUrl: env('MICROSOFT_LOGIN_URL', 'https://login.microsoftonline.com/common/oauth2/v2.0'),
  customerManagementUrl: env('MICROSOFT_CUSTOMER_MANAGEMENT_URL', 'https://clientcenter.api.bingads.microsoft.com/CustomerManagement/v13'),
  campaignManagementUrl: env('MICROSOFT_CAMPAIGN_MANAGEMENT_URL', 'https://campaign.api.bingads.microsoft.com/CampaignManagement/v13'),
});

export const mixpanelConfig = () => ({
  appApiUrl: {
    US: env('MIXPANEL_API_URL_US', 'https://mixpanel.com'),
    EU: env('MIXPANEL_API_URL_EU', 'https://eu.mixpanel.com'),
    IN: env('MIXPANEL_API_URL_IN', 'https://in.mixpanel.com'),
  },
});

/** Stripe accounts connected as payment sources (not our own billing account). */
export const stripePaymentsConfig = () => ({ apiUrl: env('STRIPE_PAYMENTS_API_URL', process.env.STRIPE_API_URL || 'https://api.stripe.com') });

export const GOOGLE_SCOPES = {
  google_ads: ['https://www.googleapis.com/auth/adwords', 'https://www.googleapis.com/auth/datamanager'],
  bigquery: ['https://www.googleapis.com/auth/bigquery'],
} as const;
export const META_SCOPES = ['ads_management', 'ads_read', 'business_management'];
export const MICROSOFT_SCOPE = 'https://ads.microsoft.com/msads.manage offline_access';
