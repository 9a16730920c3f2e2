import { MICROSOFT_ADS_VERSION } from '@/lib/server/connectors/microsoft_ads/version';
import { link, requiredSecret, requiredText, type Variable } from '@/lib/server/envVariable';

const VERSION = MICROSOFT_ADS_VERSION.version;

/** Microsoft identity platform and Microsoft Advertising: hosts, our app's client and developer token, the scope. */
export const microsoftConfig = () => ({
  clientId: process.env.MICROSOFT_OAUTH_CLIENT_ID ?? '',
  clientSecret: process.env.MICROSOFT_OAUTH_CLIENT_SECRET ?? '',
  developerToken: process.env.MICROSOFT_ADS_DEVELOPER_TOKEN ?? '',
  loginUrl: process.env.MICROSOFT_LOGIN_URL || 'https://login.microsoftonline.com/common/oauth2/v2.0',
  customerManagementUrl:
    process.env.MICROSOFT_CUSTOMER_MANAGEMENT_URL || `https://clientcenter.api.bingads.microsoft.com/CustomerManagement/${VERSION}`,
  campaignManagementUrl:
    process.env.MICROSOFT_CAMPAIGN_MANAGEMENT_URL || `https://campaign.api.bingads.microsoft.com/CampaignManagement/${VERSION}`,
  reportingUrl: process.env.MICROSOFT_ADS_REPORTING_URL || `https://reporting.api.bingads.microsoft.com/Reporting/${VERSION}`,
  scope: 'https://ads.microsoft.com/msads.manage offline_access',
});

/** Its configuration variables (lib/server/env.ts lists every folder's; .env.example documents them): our Microsoft app, its developer token, and where sign-in and the Advertising APIs live. */
export const MICROSOFT_ADS_VARIABLES = {
  MICROSOFT_OAUTH_CLIENT_ID: requiredText,
  MICROSOFT_OAUTH_CLIENT_SECRET: requiredSecret,
  MICROSOFT_ADS_DEVELOPER_TOKEN: requiredSecret,
  MICROSOFT_LOGIN_URL: link,
  MICROSOFT_CUSTOMER_MANAGEMENT_URL: link,
  MICROSOFT_CAMPAIGN_MANAGEMENT_URL: link,
  MICROSOFT_ADS_REPORTING_URL: link,
} as const satisfies Record<string, Variable>;
