import { API_VERSIONS } from '@/lib/server/connectors/versions';

/** Facebook Login and the Graph API: where they live, our app's id and secret, and the scopes asked for. */
export const metaConfig = () => ({
  appId: process.env.META_APP_ID ?? '',
  appSecret: process.env.META_APP_SECRET ?? '',
  dialogUrl: process.env.META_OAUTH_DIALOG_URL || `https://www.facebook.com/${API_VERSIONS.meta.version}/dialog/oauth`,
  graphUrl: process.env.META_GRAPH_API_URL || `https://graph.facebook.com/${API_VERSIONS.meta.version}`,
  scopes: ['ads_management', 'ads_read', 'business_management'],
});
