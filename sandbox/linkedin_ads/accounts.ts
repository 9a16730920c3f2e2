/**
 * The sandbox's LinkedIn Marketing API world and the checks every call goes through: the app, the member's
 * ad accounts, their conversion rules and their campaign groups, campaigns and creatives (sandbox/adData.ts);
 * the `LinkedIn-Version` header (missing: 400 VERSION_MISSING; not an active version: 426
 * NONEXISTENT_VERSION), `X-Restli-Protocol-Version: 2.0.0` and a live bearer token, each refused in
 * LinkedIn's error shape `{ status, serviceErrorCode, code, message }`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LINKEDIN_ADS_VERSION, LINKEDIN_VERSIONS_LEFT } from '@/lib/server/connectors/linkedin_ads/version';
import type { SandboxAdAccount } from '@/sandbox/adData';
import type { Brand } from '@/sandbox/consent';
import type { RouteHandler } from '@/sandbox/routes';
import { json } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

/** The app registered with the fake LinkedIn (linkedinEnv and SANDBOX_CLIENTS carry it). */
export const LINKEDIN_CLIENT = { id: '86sandboxlinkedin', secret: 'sandbox-linkedin-secret' };

/** The member's ad accounts (adAccounts' fields); adAnalytics dates by UTC days. */
export const LINKEDIN_ACCOUNTS = [
  {
    id: 510001,
    name: 'Acme Shoes (LinkedIn)',
    currency: 'USD',
    status: 'ACTIVE',
    type: 'BUSINESS',
    reference: 'urn:li:organization:2414183',
  },
  {
    id: 510002,
    name: 'Acme Outlet (LinkedIn)',
    currency: 'EUR',
    status: 'ACTIVE',
    type: 'BUSINESS',
    reference: 'urn:li:organization:2414183',
  },
];
export type LinkedInAccount = (typeof LINKEDIN_ACCOUNTS)[number];
/** An account as sandbox/adData.ts keeps it: LinkedIn reports UTC days. */
export const adAccountOf = (account: LinkedInAccount): SandboxAdAccount => ({
  id: String(account.id),
  name: account.name,
  currency: account.currency,
  timeZone: 'UTC',
});

/** The accounts' conversion rules (ids are global): the Conversions API ones take our events, the Insight Tag one only the tag's. */
export const LINKEDIN_RULES = [
  { id: 17001, accountId: 510001, name: 'Purchase', type: 'PURCHASE', conversionMethod: 'CONVERSIONS_API', enabled: true },
  { id: 17002, accountId: 510001, name: 'Demo request', type: 'LEAD', conversionMethod: 'CONVERSIONS_API', enabled: true },
  { id: 17003, accountId: 510001, name: 'Pricing page visit', type: 'KEY_PAGE_VIEW', conversionMethod: 'INSIGHT_TAG', enabled: true },
  { id: 17011, accountId: 510002, name: 'Purchase', type: 'PURCHASE', conversionMethod: 'CONVERSIONS_API', enabled: true },
];

/** How LinkedIn looks on its consent and error pages. */
export const LINKEDIN: Brand = { provider: 'linkedin', name: 'LinkedIn', color: '#0a66c2', account: 'sandbox.marketer@linkedin.example' };

/** A refusal in LinkedIn's shape. */
export const linkedinError = (res: ServerResponse, status: number, code: string | null, message: string, serviceErrorCode?: number) =>
  json(res, status, { status, ...(serviceErrorCode === undefined ? {} : { serviceErrorCode }), ...(code ? { code } : {}), message });

/** Versions whose sunset LinkedIn published (version.ts's left ones): served until that day. */
const PUBLISHED_SUNSETS = new Map<string, string>(LINKEDIN_VERSIONS_LEFT.map((left) => [left.version, left.sunset]));

/**
 * Whether LinkedIn serves a version today: YYYYMM (or YYYYMM.RR) of a month that has begun, not past its
 * sunset — the published one, else a year after its month ("supported … for a minimum of one year").
 */
export function isActiveVersion(header: string, now = new Date()): boolean {
  const match = /^(\d{4})(\d{2})(\.\d{2})?$/.exec(header);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  if (month < 1 || month > 12) return false;
  const released = Date.UTC(year, month - 1, 1);
  if (released > now.getTime()) return false;
  const published = PUBLISHED_SUNSETS.get(`${match[1]}${match[2]}`);
  const sunset = published ? Date.parse(`${published}T00:00:00Z`) : Date.UTC(year + 1, month - 1, 16);
  return now.getTime() < sunset;
}

/** The version the app pins, served by the fake as long as LinkedIn serves it. */
export const PINNED_VERSION = LINKEDIN_ADS_VERSION.version;

/** Answers LinkedIn's refusal of a call without a live version, the Rest.li 2.0 header or a live token; true when it did. */
export function refused(store: SandboxStore, req: IncomingMessage, res: ServerResponse, url: URL): boolean {
  const version = req.headers['linkedin-version'];
  if (typeof version !== 'string' || version === '') {
    linkedinError(
      res,
      400,
      'VERSION_MISSING',
      'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
    );
    return true;
  }
  if (!isActiveVersion(version)) {
    linkedinError(res, 426, 'NONEXISTENT_VERSION', `Requested version ${version} is not active`);
    return true;
  }
  if (req.headers['x-restli-protocol-version'] !== '2.0.0') {
    linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'Rest.li 2.0 syntax is required: send X-Restli-Protocol-Version: 2.0.0.', 100);
    return true;
  }
  if (!store.bearerToken(req, url, 'linkedin')) {
    linkedinError(res, 401, 'INVALID_ACCESS_TOKEN', 'Invalid access token', 65600);
    return true;
  }
  return false;
}

/** A Marketing API call: its headers and token are checked first. */
export const restApi =
  (store: SandboxStore, handler: RouteHandler): RouteHandler =>
  (req, res, url, params, context) =>
    refused(store, req, res, url) ? undefined : handler(req, res, url, params, context);

/** The account an id or URN names, or null. */
export const accountOf = (idOrUrn: string | null | undefined) => {
  const id = (idOrUrn ?? '').replace(/^urn:li:sponsoredAccount:/, '');
  return LINKEDIN_ACCOUNTS.find((account) => String(account.id) === id) ?? null;
};

/** `GET /rest/adAccounts?q=search`: the member's accounts (one page: pageSize up to 1,000). */
export const searchAccounts: RouteHandler = (_req, res, url) => {
  if (url.searchParams.get('q') !== 'search') return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'Unsupported finder.', 100);
  return json(res, 200, { elements: LINKEDIN_ACCOUNTS, metadata: {}, paging: { start: 0, count: 1000, links: [] } });
};

/** `GET /rest/conversions?q=account&account=urn:li:sponsoredAccount:…`: the account's conversion rules. */
export const conversionRules: RouteHandler = (_req, res, url) => {
  if (url.searchParams.get('q') !== 'account') return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'Unsupported finder.', 100);
  const account = accountOf(url.searchParams.get('account'));
  if (!account) return linkedinError(res, 403, 'ACCESS_DENIED', 'Not enough permissions to access: conversions.FINDER-account', 100);
  return json(res, 200, {
    elements: LINKEDIN_RULES.filter((rule) => rule.accountId === account.id).map(({ accountId, ...rule }) => ({
      ...rule,
      account: `urn:li:sponsoredAccount:${accountId}`,
    })),
    paging: { start: 0, count: 10, links: [] },
  });
};

/** The account's campaign groups, campaigns or creatives (`adAccounts/{id}/adCampaignGroups|adCampaigns|creatives`), all on one page. */
export function objectList(store: SandboxStore, kind: 'adCampaignGroups' | 'adCampaigns' | 'creatives'): RouteHandler {
  return (_req, res, url, params) => {
    const account = accountOf(params.account);
    if (!account) return linkedinError(res, 403, 'ACCESS_DENIED', `Not enough permissions to access: ${kind}.FINDER`, 100);
    const finder = kind === 'creatives' ? 'criteria' : 'search';
    if (url.searchParams.get('q') !== finder) return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'Unsupported finder.', 100);
    const objects = store.adData.objectsOf('linkedin', adAccountOf(account));
    const seen = new Set<string>();
    const elements: Array<Record<string, unknown>> = [];
    for (const object of objects) {
      const id = kind === 'adCampaignGroups' ? object.campaignId : kind === 'adCampaigns' ? object.adGroupId! : object.adId!;
      if (seen.has(id)) continue;
      seen.add(id);
      if (kind === 'adCampaignGroups') elements.push({ id: Number(id), name: object.campaignName, status: 'ACTIVE' });
      else if (kind === 'adCampaigns')
        elements.push({
          id: Number(id),
          name: object.adGroupName,
          campaignGroup: `urn:li:sponsoredCampaignGroup:${object.campaignId}`,
          status: 'ACTIVE',
        });
      else
        elements.push({
          id: `urn:li:sponsoredCreative:${id}`,
          name: object.adName,
          campaign: `urn:li:sponsoredCampaign:${object.adGroupId}`,
        });
    }
    return json(res, 200, { elements, metadata: {} });
  };
}
