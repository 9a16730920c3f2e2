import { LINKEDIN_ADS_VERSION } from '@/lib/server/connectors/linkedin_ads/version';
import { link, requiredSecret, requiredText, type Variable } from '@/lib/server/envVariable';

/** LinkedIn's OAuth 2.0 (three-legged) and the versioned Marketing API: hosts, our app's client, the scopes, the headers every call carries. */
export const linkedinConfig = () => ({
  clientId: process.env.LINKEDIN_OAUTH_CLIENT_ID ?? '',
  clientSecret: process.env.LINKEDIN_OAUTH_CLIENT_SECRET ?? '',
  oauthUrl: process.env.LINKEDIN_OAUTH_URL || 'https://www.linkedin.com/oauth/v2',
  apiUrl: process.env.LINKEDIN_API_URL || 'https://api.linkedin.com',
  // Read ad accounts and campaigns, read their reports, send conversions (Conversions API).
  scope: 'r_ads r_ads_reporting rw_conversions',
  headers: { 'LinkedIn-Version': LINKEDIN_ADS_VERSION.version, 'X-Restli-Protocol-Version': '2.0.0' },
});

/** Its configuration variables (lib/server/env.ts lists every folder's; .env.example documents them): our LinkedIn app, and where sign-in and the Marketing API live. */
export const LINKEDIN_ADS_VARIABLES = {
  LINKEDIN_OAUTH_CLIENT_ID: requiredText,
  LINKEDIN_OAUTH_CLIENT_SECRET: requiredSecret,
  LINKEDIN_OAUTH_URL: link,
  LINKEDIN_API_URL: link,
} as const satisfies Record<string, Variable>;
