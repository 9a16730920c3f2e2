/**
 * The sandbox's Facebook Login: the OAuth dialog (the consent screen, or Facebook's error page for an
 * unknown app or redirect URI), the code and long-lived token exchange, and removing permissions.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consent, errorPage } from '@/sandbox/consent';
import { metaAdsError, META, META_CLIENT } from '@/sandbox/meta_ads/accounts';
import { json } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

/** Facebook Login's endpoints on the shared store of logins. */
export function createFacebookLogin(store: SandboxStore) {
  /** `GET /dialog/oauth` (Facebook Login): the consent screen, or Facebook's error page for an unknown app or redirect URI. */
  function dialog(_req: IncomingMessage, res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('client_id') !== META_CLIENT.id)
      return errorPage(res, META, 'Invalid App ID', 'The provided app ID does not look like a valid app ID.');
    if (!store.registered.has(params.get('redirect_uri') ?? '')) {
      return errorPage(
        res,
        META,
        'URL blocked',
        "This redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.",
      );
    }
    const scope = (params.get('scope') ?? '').split(',').filter(Boolean);
    return consent(
      res,
      store,
      META,
      {
        client_id: params.get('client_id')!,
        redirect_uri: params.get('redirect_uri')!,
        scope: scope.join(','),
        state: params.get('state') ?? '',
      },
      ['Manage your ads (ads_management)', 'Read your ads performance (ads_read)', 'Manage your business (business_management)'].filter(
        (_label, index) => scope.includes(['ads_management', 'ads_read', 'business_management'][index]!),
      ),
    );
  }

  /** `DELETE /me/permissions`: the user removes the app, and every Meta token dies with it. */
  function removePermissions(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (!store.bearerToken(req, url, 'meta')) return metaAdsError(res, 400, 190, 'Invalid OAuth access token data.');
    for (const [key, grant] of store.accessTokens) if (grant.provider === 'meta') store.accessTokens.delete(key);
    return json(res, 200, { success: true });
  }

  /** `GET /oauth/access_token`: a code for a short-lived token, or (`fb_exchange_token`) a short-lived one for a 60-day one. */
  function accessToken(_req: IncomingMessage, res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('client_id') !== META_CLIENT.id || params.get('client_secret') !== META_CLIENT.secret) {
      return metaAdsError(res, 400, 1, 'Error validating client secret.');
    }
    if (params.get('grant_type') === 'fb_exchange_token') {
      const short = store.accessTokens.get(params.get('fb_exchange_token') ?? '');
      if (!short || short.provider !== 'meta') return metaAdsError(res, 400, 190, 'Invalid OAuth access token - Cannot parse access token');
      const longToken = store.issue(short, null, 60 * 24 * 3600);
      return json(res, 200, { access_token: longToken, token_type: 'bearer', expires_in: 5184000 });
    }
    const redeemed = store.redeem(params.get('code') ?? '', 'meta', params.get('client_id')!, params.get('redirect_uri') ?? '');
    if (redeemed === 'used') return metaAdsError(res, 400, 100, 'This authorization code has been used.', 36009);
    if (redeemed === 'mismatch') {
      return metaAdsError(
        res,
        400,
        100,
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
        36008,
      );
    }
    if (!redeemed) return metaAdsError(res, 400, 100, 'Invalid verification code format.', 36007);
    return json(res, 200, { access_token: store.issue(redeemed, null, 2 * 3600), token_type: 'bearer', expires_in: 7200 });
  }

  return { dialog, removePermissions, accessToken };
}
