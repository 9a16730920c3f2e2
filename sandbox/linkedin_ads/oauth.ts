/**
 * The sandbox's LinkedIn OAuth 2.0 (three-legged): the consent screen (or LinkedIn's error page for an
 * unknown app, an unregistered redirect URI or a scope the app lacks), the code grant and the refresh grant.
 * Access tokens live 60 days, refresh tokens 365 days from the consent: a refresh hands out a new access
 * token and the same refresh token with what is left of its life (LinkedIn, "Refresh Tokens with OAuth 2.0").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consent, errorPage } from '@/sandbox/consent';
import { LINKEDIN, LINKEDIN_CLIENT } from '@/sandbox/linkedin_ads/accounts';
import { json, readBody } from '@/sandbox/server';
import { token, type Grant, type SandboxStore } from '@/sandbox/store';

/** The scopes the sandbox app has been granted products for (Advertising API, Conversions API). */
export const LINKEDIN_SCOPES: Record<string, string> = {
  r_ads: 'Retrieve your advertising accounts',
  r_ads_reporting: 'Retrieve reporting for your advertising accounts',
  rw_conversions: 'Manage conversion tracking for your advertising accounts',
};
const ACCESS_TOKEN_SECONDS = 60 * 24 * 3600;
const REFRESH_TOKEN_SECONDS = 365 * 24 * 3600;

export function createLinkedInLogin(store: SandboxStore) {
  /** Each refresh token's end (ms): it does not move with refreshes. */
  const refreshEnds = new Map<string, number>();

  const oauthError = (res: ServerResponse, status: number, error: string, description: string) =>
    json(res, status, { error, error_description: description });

  /** `GET /oauth/v2/authorization`: the consent screen, or LinkedIn's error page. */
  function authorize(_req: IncomingMessage, res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('response_type') !== 'code') return errorPage(res, LINKEDIN, 'invalid_request', 'response_type must be code.');
    if (params.get('client_id') !== LINKEDIN_CLIENT.id)
      return errorPage(res, LINKEDIN, 'invalid_client_id', 'The passed in client_id is invalid.');
    if (!store.registered.has(params.get('redirect_uri') ?? ''))
      return errorPage(res, LINKEDIN, 'invalid_redirect_uri', 'The redirect_uri does not match the registered value.');
    const scopes = (params.get('scope') ?? '').split(/[ ,]+/).filter(Boolean);
    const unknown = scopes.filter((scope) => !(scope in LINKEDIN_SCOPES));
    if (scopes.length === 0 || unknown.length > 0)
      return errorPage(res, LINKEDIN, 'unauthorized_scope_error', `Scope "${unknown[0] ?? ''}" is not authorized for your application.`);
    return consent(
      res,
      store,
      LINKEDIN,
      {
        client_id: LINKEDIN_CLIENT.id,
        redirect_uri: params.get('redirect_uri')!,
        scope: scopes.join(' '),
        state: params.get('state') ?? '',
        // Refresh tokens are a setting of the app (programmatic refresh tokens), given with every code grant.
        offline: 'true',
      },
      scopes.map((scope) => LINKEDIN_SCOPES[scope]!),
    );
  }

  /** `POST /oauth/v2/accessToken`: a code or a refresh token for an access token. */
  async function accessToken(req: IncomingMessage, res: ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    if (form.get('client_id') !== LINKEDIN_CLIENT.id || form.get('client_secret') !== LINKEDIN_CLIENT.secret)
      return oauthError(res, 401, 'invalid_client', 'Client authentication failed');
    let grant: Grant;
    let refreshToken: string;
    if (form.get('grant_type') === 'authorization_code') {
      const redeemed = store.redeem(form.get('code') ?? '', 'linkedin', LINKEDIN_CLIENT.id, form.get('redirect_uri') ?? '');
      if (!redeemed || redeemed === 'used' || redeemed === 'mismatch')
        return oauthError(
          res,
          400,
          'invalid_request',
          'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired.',
        );
      grant = redeemed;
      refreshToken = token('AQW');
      store.refreshTokens.set(refreshToken, grant);
      refreshEnds.set(refreshToken, Date.now() + REFRESH_TOKEN_SECONDS * 1000);
    } else if (form.get('grant_type') === 'refresh_token') {
      refreshToken = form.get('refresh_token') ?? '';
      const found = store.refreshTokens.get(refreshToken);
      const ends = refreshEnds.get(refreshToken) ?? 0;
      if (!found || found.provider !== 'linkedin' || ends < Date.now())
        return oauthError(res, 400, 'invalid_grant', 'The provided authorization grant or refresh token is invalid, expired or revoked');
      store.refreshes.note(found, 'linkedin');
      grant = found;
    } else {
      return oauthError(res, 400, 'unsupported_grant_type', 'Grant type is not supported');
    }
    return json(res, 200, {
      access_token: store.issue(grant, refreshToken, ACCESS_TOKEN_SECONDS),
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: refreshToken,
      refresh_token_expires_in: Math.max(0, Math.floor(((refreshEnds.get(refreshToken) ?? Date.now()) - Date.now()) / 1000)),
      scope: grant.scope.split(' ').join(','),
    });
  }

  return { authorize, accessToken };
}
