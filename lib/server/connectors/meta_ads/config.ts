import { META_GRAPH_VERSION } from '@/lib/server/connectors/meta_ads/version';
import { link, requiredSecret, requiredText, type Variable } from '@/lib/server/envVariable';

/** Facebook Login and the Graph API: where they live, our app's id and secret, and the scopes asked for. */
export const metaConfig = () => ({
  appId: process.env.META_APP_ID ?? '',
  appSecret: process.env.META_APP_SECRET ?? '',
  dialogUrl: process.env.META_OAUTH_DIALOG_URL || `https://www.facebook.com/${META_GRAPH_VERSION.version}/dialog/oauth`,
  graphUrl: process.env.META_GRAPH_API_URL || `https://graph.facebook.com/${META_GRAPH_VERSION.version}`,
  scopes: ['ads_management', 'ads_read', 'business_management'],
});

/** Its configuration variables (lib/server/env.ts lists every folder's; .env.example documents them): our Meta app and where Facebook Login and the Graph API live. */
export const META_ADS_VARIABLES = {
  META_APP_ID: requiredText,
  META_APP_SECRET: requiredSecret,
  META_OAUTH_DIALOG_URL: link,
  META_GRAPH_API_URL: link,
} as const satisfies Record<string, Variable>;
