import { TIKTOK_ADS_VERSION } from '@/lib/server/connectors/tiktok_ads/version';
import { link, requiredSecret, requiredText, type Variable } from '@/lib/server/envVariable';

/** TikTok API for Business: where it lives (its consent page and its API share one host), and our app's id and secret. */
export const tiktokConfig = () => {
  const host = (process.env.TIKTOK_BUSINESS_API_URL || 'https://business-api.tiktok.com').replace(/\/$/, '');
  return {
    appId: process.env.TIKTOK_APP_ID ?? '',
    appSecret: process.env.TIKTOK_APP_SECRET ?? '',
    authUrl: `${host}/portal/auth`,
    apiUrl: `${host}/open_api/${TIKTOK_ADS_VERSION.version}`,
    // TikTok grants the permissions chosen in the app's settings; its consent URL names none. These are what we ask it for.
    scopes: ['Ad Account Management', 'Reporting', 'Pixel Management'],
  };
};

/** Its configuration variables (lib/server/env.ts lists every folder's; .env.example documents them): our TikTok app and where the API lives. */
export const TIKTOK_ADS_VARIABLES = {
  TIKTOK_APP_ID: requiredText,
  TIKTOK_APP_SECRET: requiredSecret,
  TIKTOK_BUSINESS_API_URL: link,
} as const satisfies Record<string, Variable>;
