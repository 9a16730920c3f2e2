/**
 * The sandbox's LinkedIn: OAuth 2.0 (consent, code and refresh grants) and the versioned Marketing API
 * (ad accounts, conversion rules, campaign groups / campaigns / creatives, adAnalytics, conversionEvents),
 * each call checked for its LinkedIn-Version, Rest.li 2.0 header and token first (accounts.ts).
 */
import type { Fake } from '@/sandbox/fake';
import { decide } from '@/sandbox/consent';
import {
  conversionRules,
  LINKEDIN,
  LINKEDIN_CLIENT,
  linkedinError,
  objectList,
  refused,
  restApi,
  searchAccounts,
} from '@/sandbox/linkedin_ads/accounts';
import { createConversionEvents } from '@/sandbox/linkedin_ads/delivery';
import { createLinkedInLogin } from '@/sandbox/linkedin_ads/oauth';
import { createAnalytics } from '@/sandbox/linkedin_ads/report';
import { routeTable } from '@/sandbox/routes';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

export function createLinkedIn(store: SandboxStore): SandboxPlatform {
  const { authorize, accessToken } = createLinkedInLogin(store);
  const api = (handler: Parameters<typeof restApi>[1]) => restApi(store, handler);
  const handle = routeTable(
    [
      ['GET /linkedin/oauth/v2/authorization', authorize],
      ['POST /linkedin/consent', (req, res) => decide(req, res, store, LINKEDIN)],
      ['POST /linkedin/oauth/v2/accessToken', accessToken],
      ['GET /linkedin/rest/adAccounts', api(searchAccounts)],
      ['GET /linkedin/rest/adAccounts/:account(\\d+)/adCampaignGroups', api(objectList(store, 'adCampaignGroups'))],
      ['GET /linkedin/rest/adAccounts/:account(\\d+)/adCampaigns', api(objectList(store, 'adCampaigns'))],
      ['GET /linkedin/rest/adAccounts/:account(\\d+)/creatives', api(objectList(store, 'creatives'))],
      ['GET /linkedin/rest/conversions', api(conversionRules)],
      ['GET /linkedin/rest/adAnalytics', api(createAnalytics(store))],
      ['POST /linkedin/rest/conversionEvents', api((req, res) => createConversionEvents(store, req, res))],
    ],
    // Any other Marketing API path is checked as a call first, then not found.
    (req, res, url) => {
      if (url.pathname.startsWith('/linkedin/rest/') && refused(store, req, res, url)) return;
      return linkedinError(res, 404, 'RESOURCE_NOT_FOUND', 'No virtual resource found');
    },
  );
  return { owns: (path) => path.startsWith('/linkedin/'), handle };
}

/** The environment that points the app's LinkedIn client at the sandbox at `url`. */
export function linkedinEnv(url: string): Record<string, string> {
  return {
    LINKEDIN_OAUTH_CLIENT_ID: LINKEDIN_CLIENT.id,
    LINKEDIN_OAUTH_CLIENT_SECRET: LINKEDIN_CLIENT.secret,
    LINKEDIN_OAUTH_URL: `${url}/linkedin/oauth/v2`,
    LINKEDIN_API_URL: `${url}/linkedin`,
  };
}

/** LinkedIn in the list of fakes (sandbox/fakes.ts): an OAuth provider that receives conversions and matches hashed emails. */
export const LINKEDIN_ADS_FAKE = {
  slug: 'linkedin_ads',
  create: createLinkedIn,
  env: linkedinEnv,
  clients: { linkedin: LINKEDIN_CLIENT },
  brand: LINKEDIN,
  conversions: 'linkedin',
  matches: { platform: 'linkedin', label: 'LinkedIn', target: 'Conversion rule' },
} as const satisfies Fake;
