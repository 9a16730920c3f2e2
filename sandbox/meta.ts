/**
 * The sandbox's Meta: Facebook Login (the OAuth dialog, code and long-lived token exchange, removing
 * permissions) and the Graph API v25.0 (the user, ad accounts, pixels) with Graph's error shapes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import { json } from '@/sandbox/server';
import { token, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

export const META_CLIENT = { id: '100200300400500', secret: 'sandbox-meta-secret' };

const META_USER = { id: '10001', name: 'Sandbox Marketer' };
const META_AD_ACCOUNTS = [
  { id: 'act_101', account_id: '101', name: 'Acme Shoes (Meta)', currency: 'USD', account_status: 1 },
  { id: 'act_102', account_id: '102', name: 'Acme Outlet (Meta)', currency: 'USD', account_status: 1 },
];
const META_PIXELS: Record<string, Array<{ id: string; name: string }>> = {
  '101': [{ id: '555000111', name: 'Acme Shoes Pixel' }],
  '102': [{ id: '555000222', name: 'Acme Outlet Pixel' }],
};
export const META: Brand = { provider: 'meta', name: 'Facebook', color: '#0866ff', account: META_USER.name };

/** Meta's part of the sandbox. */
export function createMeta(store: SandboxStore): SandboxPlatform {
  const graphError = (res: ServerResponse, status: number, code: number, message: string, subcode?: number) =>
    json(res, status, { error: { message, type: 'OAuthException', code, ...(subcode ? { error_subcode: subcode } : {}), fbtrace_id: token('A') } });

  async function meta(req: IncomingMessage, res: ServerResponse, url: URL, path: string) {
    const params = url.searchParams;
    if (req.method === 'GET' && path === '/meta/v25.0/dialog/oauth') {
      if (params.get('client_id') !== META_CLIENT.id) return errorPage(res, META, 'Invalid App ID', 'The provided app ID does not look like a valid app ID.');
      if (!store.registered.has(params.get('redirect_uri') ?? '')) {
        return errorPage(res, META, "URL blocked", "This redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.");
      }
      const scope = (params.get('scope') ?? '').split(',').filter(Boolean);
      return consent(res, store, META, { client_id: params.get('client_id')!, redirect_uri: params.get('redirect_uri')!, scope: scope.join(','), state: params.get('state') ?? '' }, [
        'Manage your ads (ads_management)',
        'Read your ads performance (ads_read)',
        'Manage your business (business_management)',
      ].filter((_label, index) => scope.includes(['ads_management', 'ads_read', 'business_management'][index]!)));
    }
    if (req.method === 'POST' && path === '/meta/consent') return decide(req, res, store, META);
    if (req.method === 'DELETE' && path === '/meta/graph/v25.0/me/permissions') {
      if (!store.bearerToken(req, url, 'meta')) return graphError(res, 400, 190, 'Invalid OAuth access token data.');
      for (const [key, grant] of store.accessTokens) if (grant.provider === 'meta') store.accessTokens.delete(key);
      return json(res, 200, { success: true });
    }
    if (req.method !== 'GET') return graphError(res, 400, 100, 'Unsupported post request.');

    if (path === '/meta/graph/v25.0/oauth/access_token') {
      if (params.get('client_id') !== META_CLIENT.id || params.get('client_secret') !== META_CLIENT.secret) {
        return graphError(res, 400, 1, 'Error validating client secret.');
      }
      if (params.get('grant_type') === 'fb_exchange_token') {
        const short = store.accessTokens.get(params.get('fb_exchange_token') ?? '');
        if (!short || short.provider !== 'meta') return graphError(res, 400, 190, 'Invalid OAuth access token - Cannot parse access token');
        const longToken = store.issue(short, null, 60 * 24 * 3600);
        return json(res, 200, { access_token: longToken, token_type: 'bearer', expires_in: 5184000 });
      }
      const redeemed = store.redeem(params.get('code') ?? '', 'meta', params.get('client_id')!, params.get('redirect_uri') ?? '');
      if (redeemed === 'used') return graphError(res, 400, 100, 'This authorization code has been used.', 36009);
      if (redeemed === 'mismatch') {
        return graphError(res, 400, 100, 'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request', 36008);
      }
      if (!redeemed) return graphError(res, 400, 100, 'Invalid verification code format.', 36007);
      return json(res, 200, { access_token: store.issue(redeemed, null, 2 * 3600), token_type: 'bearer', expires_in: 7200 });
    }
    const caller = store.bearerToken(req, url, 'meta');
    if (!caller) {
      return store.revokedProviders.has('meta')
        ? graphError(res, 400, 190, 'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.', 460)
        : graphError(res, 400, 190, 'Invalid OAuth access token data.');
    }
    if (path === '/meta/graph/v25.0/me') return json(res, 200, META_USER);
    const fields = (params.get('fields') ?? 'id').split(',');
    const pick = (item: Json) => Object.fromEntries(Object.entries(item).filter(([key]) => key === 'id' || fields.includes(key)));
    if (path === '/meta/graph/v25.0/me/adaccounts') {
      if (!caller.scope.includes('ads_read') && !caller.scope.includes('ads_management')) return graphError(res, 403, 200, '(#200) Requires ads_read permission');
      return json(res, 200, { data: META_AD_ACCOUNTS.map(pick), paging: { cursors: { before: 'MAZDZD', after: 'MQZDZD' } } });
    }
    const pixels = /^\/meta\/graph\/v25.0\/act_(\d+)\/adspixels$/.exec(path);
    if (pixels) {
      const list = META_PIXELS[pixels[1]!];
      if (!list) return graphError(res, 400, 100, `Unsupported get request. Object with ID 'act_${pixels[1]}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, 33);
      return json(res, 200, { data: list.map(pick), paging: { cursors: { before: 'MAZDZD', after: 'MAZDZD' } } });
    }
    return graphError(res, 400, 2500, 'Unknown path components');
  }

  return { owns: (path) => path.startsWith('/meta/'), handle: (req, res, url) => meta(req, res, url, url.pathname) };
}

/** The environment that points the app's Meta client at the sandbox at `url`. */
export function metaEnv(url: string): Record<string, string> {
  return {
    META_APP_ID: META_CLIENT.id,
    META_APP_SECRET: META_CLIENT.secret,
    META_OAUTH_DIALOG_URL: `${url}/meta/v25.0/dialog/oauth`,
    META_GRAPH_API_URL: `${url}/meta/graph/v25.0`,
  };
}
