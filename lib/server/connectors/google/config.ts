import { link, requiredSecret, requiredText, type Variable } from '@/lib/server/envVariable';

/**
 * Google's OAuth endpoints and our app's client, shared by the Google Ads and BigQuery connectors.
 * Production uses the real hosts; `npm run dev` and the tests point them at the local sandbox.
 */
export const googleConfig = () => ({
  clientId: process.env.GOOGLE_OAUTH_CLIENT_ID ?? '',
  clientSecret: process.env.GOOGLE_OAUTH_CLIENT_SECRET ?? '',
  authorizeUrl: process.env.GOOGLE_OAUTH_AUTHORIZE_URL || 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: process.env.GOOGLE_OAUTH_TOKEN_URL || 'https://oauth2.googleapis.com/token',
  userInfoUrl: process.env.GOOGLE_USERINFO_URL || 'https://openidconnect.googleapis.com/v1/userinfo',
});

/** Its configuration variables (lib/server/env.ts lists every folder's; .env.example documents them): the Google OAuth client (Google Ads and BigQuery logins) and its endpoints. */
export const GOOGLE_VARIABLES = {
  GOOGLE_OAUTH_CLIENT_ID: requiredText,
  GOOGLE_OAUTH_CLIENT_SECRET: requiredSecret,
  GOOGLE_OAUTH_AUTHORIZE_URL: link,
  GOOGLE_OAUTH_TOKEN_URL: link,
  GOOGLE_USERINFO_URL: link,
} as const satisfies Record<string, Variable>;
