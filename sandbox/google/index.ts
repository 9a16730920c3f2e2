/**
 * The sandbox's Google: OAuth 2.0 (consent, code and refresh grants, revoke, userinfo) and the
 * service-account JWT grant (RFC 7523) that BigQuery logins use (sandbox/bigquery/). It is the provider
 * of Google Ads (sandbox/google_ads/) and BigQuery logins alike.
 */
import { createVerify, generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import type { Fake } from '@/sandbox/fake';
import { routeTable, type RouteHandler } from '@/sandbox/routes';
import { json, readBody } from '@/sandbox/server';
import { token, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';

/** The app's OAuth client registered with the fake Google (googleEnv and SANDBOX_CLIENTS carry it). */
export const GOOGLE_CLIENT = { id: 'sandbox-google-client.apps.googleusercontent.com', secret: 'sandbox-google-secret' };

/** The marketer a person is signed in as on Google's consent page. */
const GOOGLE_USER = { sub: '109876543210', email: 'sandbox.marketer@example.com', name: 'Sandbox Marketer' };
/** How Google looks on its consent and error pages. */
export const GOOGLE: Brand = { provider: 'google', name: 'Google', color: '#1a73e8', account: GOOGLE_USER.email };

/** Google's answer to a call without a live token (the Ads API's and OAuth userinfo's alike). */
export const googleUnauthenticated = (res: ServerResponse) =>
  json(res, 401, {
    error: {
      code: 401,
      message:
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      status: 'UNAUTHENTICATED',
    },
  });

/** RS256 JWT check for the service-account grant (RFC 7523). */
function verifyAssertion(
  assertion: string,
  account: { email: string; publicKey: string },
  audience: string,
): { ok: boolean; error?: string } {
  const [header, payload, signature] = assertion.split('.');
  if (!header || !payload || !signature) return { ok: false, error: 'Invalid JWT.' };
  let claims: { iss?: string; aud?: string; exp?: number; iat?: number; scope?: string };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  } catch {
    return { ok: false, error: 'Invalid JWT.' };
  }
  if (claims.iss !== account.email) return { ok: false, error: 'Invalid grant: account not found' };
  const valid = createVerify('RSA-SHA256').update(`${header}.${payload}`).verify(account.publicKey, signature, 'base64url');
  if (!valid) return { ok: false, error: 'Invalid JWT Signature.' };
  const now = Math.floor(Date.now() / 1000);
  if (claims.aud !== audience) return { ok: false, error: 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.' };
  if (!claims.exp || claims.exp < now || !claims.iat || claims.exp - claims.iat > 3600) {
    return { ok: false, error: 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.' };
  }
  if (!claims.scope) return { ok: false, error: 'Invalid OAuth scope or ID token audience provided.' };
  return { ok: true };
}

/** Google's part of the sandbox, and the service-account key (for BigQuery) it accepts. */
export function createGoogle(store: SandboxStore): SandboxPlatform & { serviceAccountKey: () => string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccount = {
    email: 'signalbridge@acme-warehouse.iam.gserviceaccount.com',
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
  const serviceAccountKeyOf = () =>
    JSON.stringify({
      type: 'service_account',
      project_id: 'acme-warehouse',
      private_key_id: 'sandbox-key-1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: serviceAccount.email,
      client_id: '112233445566778899',
      token_uri: `${store.base}/google/token`,
    });

  function googleAuthorize(res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('client_id') !== GOOGLE_CLIENT.id) {
      return errorPage(res, GOOGLE, 'invalid_client', 'The OAuth client was not found. (Error 401: invalid_client)');
    }
    if (!store.registered.has(params.get('redirect_uri') ?? '')) {
      return errorPage(
        res,
        GOOGLE,
        'redirect_uri_mismatch',
        'Error 400: redirect_uri_mismatch. The redirect URI in the request does not match the ones authorized for the OAuth client.',
      );
    }
    if (params.get('response_type') !== 'code')
      return errorPage(res, GOOGLE, 'invalid_request', 'Required parameter is missing: response_type');
    const scope = params.get('scope') ?? '';
    if (!scope) return errorPage(res, GOOGLE, 'invalid_request', 'Missing required parameter: scope');
    consent(
      res,
      store,
      GOOGLE,
      {
        client_id: params.get('client_id')!,
        redirect_uri: params.get('redirect_uri')!,
        scope,
        state: params.get('state') ?? '',
        offline: String(params.get('access_type') === 'offline'),
      },
      scope
        .split(' ')
        .map((item) =>
          item.endsWith('/adwords')
            ? 'See, edit, create and delete your Google Ads accounts and data'
            : item.endsWith('/datamanager')
              ? 'Send conversion data to your Google products (Data Manager)'
              : item.endsWith('/bigquery')
                ? 'View and manage your data in Google BigQuery'
                : `Share your ${item === 'openid' ? 'identity' : item}`,
        ),
    );
  }

  async function googleToken(req: IncomingMessage, res: ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    const grantType = form.get('grant_type');
    const oauthError = (status: number, error: string, description: string) => json(res, status, { error, error_description: description });
    if (grantType === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      const checked = verifyAssertion(form.get('assertion') ?? '', serviceAccount, `${store.base}/google/token`);
      if (!checked.ok) return oauthError(400, 'invalid_grant', checked.error!);
      store.refreshes.note(`service-account:${serviceAccount.email}`, 'google');
      const accessToken = store.issue(
        { provider: 'google', scope: 'https://www.googleapis.com/auth/bigquery', offline: false, serviceAccount: true },
        null,
        3599,
      );
      return json(res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
    }
    if (form.get('client_id') !== GOOGLE_CLIENT.id || form.get('client_secret') !== GOOGLE_CLIENT.secret) {
      return oauthError(401, 'invalid_client', 'The OAuth client was not found.');
    }
    if (grantType === 'authorization_code') {
      const redeemed = store.redeem(form.get('code') ?? '', 'google', form.get('client_id')!, form.get('redirect_uri') ?? '');
      if (redeemed === 'mismatch') return oauthError(400, 'redirect_uri_mismatch', 'Bad Request');
      if (!redeemed || redeemed === 'used') return oauthError(400, 'invalid_grant', 'Malformed auth code.');
      const refreshToken = redeemed.offline ? token('1//0g') : null;
      if (refreshToken) store.refreshTokens.set(refreshToken, redeemed);
      const accessToken = store.issue(redeemed, refreshToken, 3599);
      return json(res, 200, {
        access_token: accessToken,
        expires_in: 3599,
        token_type: 'Bearer',
        scope: redeemed.scope,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
      });
    }
    if (grantType === 'refresh_token') {
      const grant = store.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!grant || grant.provider !== 'google') return oauthError(400, 'invalid_grant', 'Token has been expired or revoked.');
      store.refreshes.note(grant, 'google');
      const accessToken = store.issue(grant, form.get('refresh_token'), 3599);
      return json(res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer', scope: grant.scope });
    }
    return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType ?? ''}`);
  }

  async function googleRevoke(req: IncomingMessage, res: ServerResponse, url: URL) {
    const value = new URLSearchParams(await readBody(req)).get('token') ?? url.searchParams.get('token') ?? '';
    const grant = store.refreshTokens.get(value);
    const access = store.accessTokens.get(value);
    if (!grant && !access) return json(res, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
    const refresh = grant ? value : access?.refreshToken;
    if (refresh) store.refreshTokens.delete(refresh);
    for (const [key, candidate] of store.accessTokens)
      if (key === value || (refresh && candidate.refreshToken === refresh)) store.accessTokens.delete(key);
    return json(res, 200, {});
  }

  const userinfo: RouteHandler = (req, res, url) =>
    store.bearerToken(req, url, 'google') ? json(res, 200, { ...GOOGLE_USER, email_verified: true }) : googleUnauthenticated(res);

  const handle = routeTable(
    [
      ['GET /google/o/oauth2/v2/auth', (_req, res, url) => googleAuthorize(res, url)],
      ['POST /google/consent', (req, res) => decide(req, res, store, GOOGLE)],
      ['POST /google/token', googleToken],
      ['POST /google/revoke', googleRevoke],
      ['* /google/userinfo', userinfo],
      ['* /__sandbox/google/service-account-key.json', (_req, res) => json(res, 200, JSON.parse(serviceAccountKeyOf()))],
    ],
    (_req, res, url) => json(res, 404, { error: { code: 404, message: `Not found: ${url.pathname}`, status: 'NOT_FOUND' } }),
  );

  return {
    owns: (path) => path.startsWith('/google/') || path === '/__sandbox/google/service-account-key.json',
    handle,
    serviceAccountKey: serviceAccountKeyOf,
  };
}

/** The environment that points the app's Google clients at the sandbox at `url`. */
export function googleEnv(url: string): Record<string, string> {
  return {
    GOOGLE_OAUTH_CLIENT_ID: GOOGLE_CLIENT.id,
    GOOGLE_OAUTH_CLIENT_SECRET: GOOGLE_CLIENT.secret,
    GOOGLE_OAUTH_AUTHORIZE_URL: `${url}/google/o/oauth2/v2/auth`,
    GOOGLE_OAUTH_TOKEN_URL: `${url}/google/token`,
    GOOGLE_USERINFO_URL: `${url}/google/userinfo`,
  };
}

/** Google in the list of fakes (sandbox/fakes.ts): the OAuth provider whose logins /__sandbox can revoke. */
export const GOOGLE_FAKE = {
  slug: 'google',
  create: createGoogle,
  env: googleEnv,
  clients: { google: GOOGLE_CLIENT },
  brand: GOOGLE,
} as const satisfies Fake;
