/**
 * The sandbox's Meta world and its Graph API basics: the version we pin, the app, the marketer, their ad
 * accounts and pixels (`GET /me/adaccounts`, `GET act_{id}/adspixels`), the demo login, and Graph's
 * error shapes for a bad token or an unreachable object.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { META_GRAPH_VERSION } from '@/lib/server/connectors/meta_ads/version';
import type { SandboxAdAccount } from '@/sandbox/adData';
import type { Brand } from '@/sandbox/consent';
import type { RouteParams } from '@/sandbox/routes';
import { json } from '@/sandbox/server';
import { token, type AccessToken, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

/** The Graph API version the sandbox serves: the one the app pins (its folder's version.ts). */
export const GRAPH_VERSION = META_GRAPH_VERSION.version;
/** Where the Graph API answers in the sandbox (`/meta/graph/{version}`). */
export const GRAPH = `/meta/graph/${GRAPH_VERSION}`;

/** A long-lived Meta login the sandbox knows from the start: the demo organization's Meta destination uses it. */
export const META_DEMO_TOKEN = 'EAABsandboxDemoLongLivedToken';

/** The app registered with the fake Meta (metaEnv and SANDBOX_CLIENTS carry it). */
export const META_CLIENT = { id: '100200300400500', secret: 'sandbox-meta-secret' };

/** The marketer every sandbox login is, and the ad accounts that login reaches. */
export const META_USER = { id: '10001', name: 'Sandbox Marketer' };
export const META_AD_ACCOUNTS = [
  { id: 'act_101', account_id: '101', name: 'Acme Shoes (Meta)', currency: 'USD', timezone_name: 'America/New_York', account_status: 1 },
  { id: 'act_102', account_id: '102', name: 'Acme Outlet (Meta)', currency: 'USD', timezone_name: 'Europe/London', account_status: 1 },
];

/** A sandbox ad account as sandbox/adData.ts knows it (id without `act_`), for tests that compute expected figures. */
export function metaSandboxAccount(accountId: string): SandboxAdAccount | null {
  const account = META_AD_ACCOUNTS.find((candidate) => candidate.account_id === accountId.replace(/^act_/, ''));
  return account ? { id: account.account_id, name: account.name, currency: account.currency, timeZone: account.timezone_name } : null;
}

/** Each ad account's pixels (by account id without `act_`). */
export const META_PIXELS: Record<string, Array<{ id: string; name: string }>> = {
  '101': [{ id: '555000111', name: 'Acme Shoes Pixel' }],
  '102': [{ id: '555000222', name: 'Acme Outlet Pixel' }],
};
/** How Meta looks on its consent and error pages. */
export const META: Brand = { provider: 'meta', name: 'Facebook', color: '#0866ff', account: META_USER.name };

/** A Graph error in Meta's shape (OAuthException, its code and subcode, a trace id). */
export const metaAdsError = (res: ServerResponse, status: number, code: number, message: string, subcode?: number) =>
  json(res, status, {
    error: { message, type: 'OAuthException', code, ...(subcode ? { error_subcode: subcode } : {}), fbtrace_id: token('A') },
  });

/** A dead or unknown token: 190, with subcode 460 once the user removed the app's access. */
export const invalidToken = (store: SandboxStore, res: ServerResponse) =>
  store.revokedProviders.has('meta')
    ? metaAdsError(
        res,
        400,
        190,
        'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
        460,
      )
    : metaAdsError(res, 400, 190, 'Invalid OAuth access token data.');

/** The ad account (of the login's: every sandbox login has META_AD_ACCOUNTS) whose pixel this is, or null. */
export const ownerOfPixel = (pixelId: string) =>
  META_AD_ACCOUNTS.find((account) => META_PIXELS[account.account_id]?.some((pixel) => pixel.id === pixelId))?.account_id ?? null;
/** Whether a login may read ads (ads_read, or ads_management that includes it). */
export const readsAds = (caller: AccessToken) => caller.scope.includes('ads_read') || caller.scope.includes('ads_management');
/** Graph's refusal of an object the login cannot reach (#100, subcode 33). */
export const unreachable = (res: ServerResponse, id: string) =>
  metaAdsError(
    res,
    400,
    100,
    `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    33,
  );

/** A Graph read on behalf of a live login (sandbox/meta_ads/index.ts checks the token first). */
export type GraphHandler = (req: IncomingMessage, res: ServerResponse, url: URL, params: RouteParams, caller: AccessToken) => unknown;
/** Graph's `fields`: an object's id, plus the fields asked for. */
export const picker = (url: URL) => {
  const fields = (url.searchParams.get('fields') ?? 'id').split(',');
  return (item: Json) => Object.fromEntries(Object.entries(item).filter(([key]) => key === 'id' || fields.includes(key)));
};

/** `GET /me/adaccounts`: the login's ad accounts (ads_read needed). */
export const adAccounts: GraphHandler = (_req, res, url, _params, caller) => {
  if (!readsAds(caller)) return metaAdsError(res, 403, 200, '(#200) Requires ads_read permission');
  return json(res, 200, { data: META_AD_ACCOUNTS.map(picker(url)), paging: { cursors: { before: 'MAZDZD', after: 'MQZDZD' } } });
};

/** `GET act_{id}/adspixels`: the account's pixels. */
export const adsPixels: GraphHandler = (_req, res, url, params) => {
  const list = META_PIXELS[params.account!];
  if (!list) return unreachable(res, `act_${params.account}`);
  return json(res, 200, { data: list.map(picker(url)), paging: { cursors: { before: 'MAZDZD', after: 'MAZDZD' } } });
};
