/**
 * The sandbox's TikTok advertiser authorization: the authorization page (the consent screen, or TikTok's error
 * page for an unknown app or redirect URI), the auth code traded for a long-term token
 * (`POST /oauth2/access_token/`, a JSON body of app_id, secret and auth_code), and the advertisers a token
 * reaches (`GET /oauth2/advertiser/get/`, with app_id and secret).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consent, errorPage } from '@/sandbox/consent';
import { ok, TIKTOK, TIKTOK_ADVERTISERS, TIKTOK_CLIENT, tiktokAnswer, type TikTokHandler } from '@/sandbox/tiktok_ads/accounts';
import { readBody } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

/** The permissions the sandbox app was granted in its settings (TikTok's consent shows them; the URL names none). */
export const TIKTOK_PERMISSIONS = ['Ad Account Management', 'Reporting', 'Pixel Management'];

export function createTikTokLogin(store: SandboxStore) {
  /** `GET /portal/auth`: the consent screen, or TikTok's error page for an unknown app or redirect URI. */
  function authorize(_req: IncomingMessage, res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('app_id') !== TIKTOK_CLIENT.id)
      return errorPage(res, TIKTOK, 'Invalid app', 'The app_id is not a TikTok developer app.');
    if (!store.registered.has(params.get('redirect_uri') ?? '')) {
      return errorPage(res, TIKTOK, 'Invalid redirect URI', "The redirect_uri does not match the app's Advertiser redirect URL.");
    }
    return consent(
      res,
      store,
      TIKTOK,
      {
        client_id: params.get('app_id')!,
        redirect_uri: params.get('redirect_uri')!,
        scope: TIKTOK_PERMISSIONS.join(','),
        state: params.get('state') ?? '',
      },
      TIKTOK_PERMISSIONS,
    );
  }

  /**
   * `POST /oauth2/access_token/`: the auth code (once, within 10 minutes) for a long-term token; the answer lists
   * the advertisers it reaches. TikTok answers HTTP 200 either way: 40101 for a wrong app or secret, 40110 for a
   * bad code.
   */
  async function accessToken(req: IncomingMessage, res: ServerResponse) {
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
    } catch {
      return tiktokAnswer(res, 40002, 'The request body is not valid JSON.');
    }
    if (body.app_id !== TIKTOK_CLIENT.id || body.secret !== TIKTOK_CLIENT.secret)
      return tiktokAnswer(res, 40101, 'The app_id or secret is invalid.');
    const code = typeof body.auth_code === 'string' ? body.auth_code : '';
    // TikTok's exchange names no redirect URI: the code is checked against the one it was issued for.
    const redeemed = store.redeem(code, 'tiktok', TIKTOK_CLIENT.id, store.codes.get(code)?.redirectUri ?? '');
    if (!redeemed || redeemed === 'used' || redeemed === 'mismatch')
      return tiktokAnswer(res, 40110, 'The auth_code is invalid or has expired.');
    const accessTokenValue = store.issue(redeemed, null, 100 * 365 * 24 * 3600);
    return ok(res, {
      access_token: accessTokenValue,
      scope: [1, 2, 4],
      advertiser_ids: TIKTOK_ADVERTISERS.map((advertiser) => advertiser.advertiser_id),
    });
  }

  /** `GET /oauth2/advertiser/get/`: the advertisers the token reaches, given the app's id and secret. */
  const advertisers: TikTokHandler = (_req, res, url) => {
    if (url.searchParams.get('app_id') !== TIKTOK_CLIENT.id || url.searchParams.get('secret') !== TIKTOK_CLIENT.secret)
      return tiktokAnswer(res, 40101, 'The app_id or secret is invalid.');
    return ok(res, {
      list: TIKTOK_ADVERTISERS.map(({ advertiser_id, advertiser_name }) => ({ advertiser_id, advertiser_name })),
    });
  };

  return { authorize, accessToken, advertisers };
}
