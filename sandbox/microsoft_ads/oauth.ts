/**
 * The sandbox's Microsoft identity platform v2.0: the consent screen (or Entra ID's error page for an
 * unknown app, redirect URI or scope), the code and rotating refresh grants, and AADSTS errors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consent, errorPage } from '@/sandbox/consent';
import { MICROSOFT, MICROSOFT_CLIENT } from '@/sandbox/microsoft_ads/accounts';
import { json, readBody } from '@/sandbox/server';
import { token, type Grant, type SandboxStore } from '@/sandbox/store';

/** The identity platform's endpoints on the shared store of logins. */
export function createMicrosoftLogin(store: SandboxStore) {
  const aadError = (res: ServerResponse, status: number, error: string, code: number, description: string) =>
    json(res, status, {
      error,
      error_description: `AADSTS${code}: ${description} Trace ID: ${token('')} Timestamp: ${new Date().toISOString()}`,
      error_codes: [code],
      timestamp: new Date().toISOString(),
      trace_id: token(''),
      correlation_id: token(''),
    });

  /** `GET /common/oauth2/v2.0/authorize`: the consent screen, or Entra ID's error page for an unknown app, redirect URI or scope. */
  function authorize(_req: IncomingMessage, res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('client_id') !== MICROSOFT_CLIENT.id) {
      return errorPage(res, MICROSOFT, 'unauthorized_client', 'AADSTS700016: Application with identifier was not found in the directory.');
    }
    if (!store.registered.has(params.get('redirect_uri') ?? '')) {
      return errorPage(
        res,
        MICROSOFT,
        'invalid_request',
        'AADSTS50011: The redirect URI specified in the request does not match the redirect URIs configured for the application.',
      );
    }
    const scope = params.get('scope') ?? '';
    if (!scope.includes('https://ads.microsoft.com/msads.manage'))
      return errorPage(res, MICROSOFT, 'invalid_scope', 'AADSTS70011: The provided value for the input parameter scope is not valid.');
    return consent(
      res,
      store,
      MICROSOFT,
      {
        client_id: params.get('client_id')!,
        redirect_uri: params.get('redirect_uri')!,
        scope,
        state: params.get('state') ?? '',
        offline: String(scope.split(' ').includes('offline_access')),
      },
      [
        'Manage your Microsoft Advertising accounts',
        ...(scope.includes('offline_access') ? ['Maintain access to data you have given it access to'] : []),
      ],
    );
  }

  /** `POST /common/oauth2/v2.0/token`: a code or a refresh token for an access token (and a new refresh token when offline). */
  async function tokenGrant(req: IncomingMessage, res: ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    if (form.get('client_id') !== MICROSOFT_CLIENT.id || form.get('client_secret') !== MICROSOFT_CLIENT.secret) {
      return aadError(res, 401, 'invalid_client', 7000215, 'Invalid client secret provided.');
    }
    if (!form.get('scope'))
      return aadError(res, 400, 'invalid_request', 900144, "The request body must contain the following parameter: 'scope'.");
    let grant: Grant;
    if (form.get('grant_type') === 'authorization_code') {
      const redeemed = store.redeem(form.get('code') ?? '', 'microsoft', form.get('client_id')!, form.get('redirect_uri') ?? '');
      if (redeemed === 'used')
        return aadError(
          res,
          400,
          'invalid_grant',
          54005,
          'OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.',
        );
      if (redeemed === 'mismatch')
        return aadError(res, 400, 'invalid_grant', 50148, 'The redirect_uri does not match the one used in the authorization request.');
      if (!redeemed)
        return aadError(res, 400, 'invalid_grant', 70000, 'The provided authorization code or refresh token has expired or is invalid.');
      grant = redeemed;
    } else if (form.get('grant_type') === 'refresh_token') {
      const old = form.get('refresh_token') ?? '';
      const found = store.refreshTokens.get(old);
      if (!found || found.provider !== 'microsoft') {
        return aadError(res, 400, 'invalid_grant', 70000, 'The provided authorization code or refresh token has expired or is invalid.');
      }
      // A new refresh token comes with every refresh, and the redeemed one stays valid (Microsoft does not revoke it:
      // learn.microsoft.com/entra/identity-platform/refresh-tokens); parallel refreshes of one login all work.
      store.refreshes.note(found, 'microsoft');
      grant = found;
    } else {
      return aadError(res, 400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.');
    }
    const refreshToken = grant.offline ? token('M.C5_') : null;
    if (refreshToken) store.refreshTokens.set(refreshToken, grant);
    return json(res, 200, {
      token_type: 'Bearer',
      scope: grant.scope,
      expires_in: 3600,
      ext_expires_in: 3600,
      access_token: store.issue(grant, refreshToken, 3600),
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
    });
  }

  return { authorize, tokenGrant };
}
