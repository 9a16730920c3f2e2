/**
 * The sandbox's Microsoft: the identity platform v2.0 (consent, code and rotating refresh grants, AADSTS
 * errors) and Microsoft Advertising REST v13 (the user, accounts, conversion goals, offline conversions,
 * reports; developer token and CustomerId headers checked).
 */
import type { Fake } from '@/sandbox/fake';
import { decide } from '@/sandbox/consent';
import {
  adApi,
  adApiFault,
  conversionGoals,
  MICROSOFT,
  MICROSOFT_CLIENT,
  MICROSOFT_DEVELOPER_TOKEN,
  queryAccount,
  refusedCredentials,
  REST_VERSION,
  searchAccounts,
  userQuery,
} from '@/sandbox/microsoft_ads/accounts';
import { applyOfflineConversions } from '@/sandbox/microsoft_ads/delivery';
import { createMicrosoftLogin } from '@/sandbox/microsoft_ads/oauth';
import { createReports } from '@/sandbox/microsoft_ads/report';
import { routeTable } from '@/sandbox/routes';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

/** Microsoft's part of the sandbox. */
export function createMicrosoft(store: SandboxStore): SandboxPlatform {
  const { authorize, tokenGrant } = createMicrosoftLogin(store);
  const { submitReport, pollReport, downloadReport } = createReports(store);
  const CUSTOMERS = `/microsoft/clientcenter/CustomerManagement/${REST_VERSION}`;
  const REPORTING = `/microsoft/reporting/Reporting/${REST_VERSION}`;
  const CAMPAIGNS = `/microsoft/campaign/CampaignManagement/${REST_VERSION}`;
  const handle = routeTable(
    [
      ['GET /microsoft/common/oauth2/v2.0/authorize', authorize],
      ['POST /microsoft/consent', (req, res) => decide(req, res, store, MICROSOFT)],
      ['POST /microsoft/common/oauth2/v2.0/token', tokenGrant],
      ['GET /microsoft/reportdownloads/:key([A-Za-z0-9_-]+).zip', (_req, res, _url, params) => downloadReport(res, params.key!)],
      [`POST ${CUSTOMERS}/User/Query`, adApi(store, userQuery)],
      [`POST ${CUSTOMERS}/Accounts/Search`, adApi(store, searchAccounts)],
      [`POST ${CUSTOMERS}/Account/Query`, adApi(store, queryAccount)],
      [`POST ${REPORTING}/GenerateReport/Submit`, adApi(store, submitReport)],
      [`POST ${REPORTING}/GenerateReport/Poll`, adApi(store, pollReport)],
      [`POST ${CAMPAIGNS}/ConversionGoals/QueryByIds`, adApi(store, conversionGoals)],
      [`POST ${CAMPAIGNS}/OfflineConversions/Apply`, adApi(store, (req, res) => applyOfflineConversions(store, req, res))],
    ],
    // Any other read is not found; any other write is checked as an Ad API call first, then not found by its path.
    (req, res, url) => {
      if (req.method !== 'POST') return adApiFault(res, 404, 0, 'NotFound', 'Not found');
      if (refusedCredentials(store, req, res, url)) return;
      return adApiFault(res, 404, 0, 'NotFound', `Not found: ${url.pathname}`);
    },
  );

  return { owns: (path) => path.startsWith('/microsoft/'), handle };
}

/** The environment that points the app's Microsoft clients at the sandbox at `url`. */
export function microsoftEnv(url: string): Record<string, string> {
  return {
    MICROSOFT_OAUTH_CLIENT_ID: MICROSOFT_CLIENT.id,
    MICROSOFT_OAUTH_CLIENT_SECRET: MICROSOFT_CLIENT.secret,
    MICROSOFT_ADS_DEVELOPER_TOKEN: MICROSOFT_DEVELOPER_TOKEN,
    MICROSOFT_LOGIN_URL: `${url}/microsoft/common/oauth2/v2.0`,
    MICROSOFT_CUSTOMER_MANAGEMENT_URL: `${url}/microsoft/clientcenter/CustomerManagement/${REST_VERSION}`,
    MICROSOFT_CAMPAIGN_MANAGEMENT_URL: `${url}/microsoft/campaign/CampaignManagement/${REST_VERSION}`,
    MICROSOFT_ADS_REPORTING_URL: `${url}/microsoft/reporting/Reporting/${REST_VERSION}`,
  };
}

/** Microsoft in the list of fakes (sandbox/fakes.ts): an OAuth provider that receives offline conversions and matches their identifiers. */
export const MICROSOFT_ADS_FAKE = {
  slug: 'microsoft_ads',
  create: createMicrosoft,
  env: microsoftEnv,
  clients: { microsoft: MICROSOFT_CLIENT, microsoftDeveloperToken: MICROSOFT_DEVELOPER_TOKEN },
  brand: MICROSOFT,
  conversions: 'microsoft',
  matches: { platform: 'microsoft', label: 'Microsoft', target: 'Goal' },
} as const satisfies Fake;
