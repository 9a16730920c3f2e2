/**
 * The sandbox's Google: OAuth 2.0 (consent, code and refresh grants, revoke, userinfo), the Google
 * Ads API v26 (accessible customers, a manager with two clients, conversion actions; a client is
 * refused without its manager as login-customer-id), the Data Manager API's events:ingest (conversions
 * to those customers' conversion actions, sandbox/datamanager.ts) and BigQuery (projects, through a
 * service-account JWT grant, RFC 7523).
 */
import { createVerify, generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import { ingestEvents, type DataManagerWorld } from '@/sandbox/datamanager';
import { json, readBody } from '@/sandbox/server';
import { token, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

export const GOOGLE_CLIENT = { id: 'sandbox-google-client.apps.googleusercontent.com', secret: 'sandbox-google-secret' };

/** The sandbox's world: one marketer with a manager account, its clients, and their conversion targets. */
const GOOGLE_USER = { sub: '109876543210', email: 'sandbox.marketer@example.com', name: 'Sandbox Marketer' };
const GOOGLE_CUSTOMERS: Record<string, { name: string; manager: boolean; currency: string; clients?: string[] }> = {
  '1112223334': { name: 'Sandbox Agency (manager)', manager: true, currency: 'USD', clients: ['1234567890', '2345678901'] },
  '5556667778': { name: 'Sandbox Direct Store', manager: false, currency: 'EUR' },
  '1234567890': { name: 'Acme Shoes', manager: false, currency: 'USD' },
  '2345678901': { name: 'Acme Outlet', manager: false, currency: 'USD' },
};
const GOOGLE_DIRECT = ['1112223334', '5556667778'];
const CONVERSION_ACTIONS = [
  { id: '9001', name: 'Purchase', status: 'ENABLED' },
  { id: '9002', name: 'Lead form submitted', status: 'ENABLED' },
  { id: '9003', name: 'Old checkout (removed)', status: 'REMOVED' },
];
const BIGQUERY_PROJECTS = [
  { id: 'acme-analytics', friendlyName: 'Acme Analytics' },
  { id: 'acme-warehouse', friendlyName: 'Acme Warehouse' },
];
export const GOOGLE: Brand = { provider: 'google', name: 'Google', color: '#1a73e8', account: GOOGLE_USER.email };

/** RS256 JWT check for the service-account grant (RFC 7523). */
function verifyAssertion(assertion: string, account: { email: string; publicKey: string }, audience: string): { ok: boolean; error?: string } {
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
  const serviceAccount = { email: 'signalbridge@acme-warehouse.iam.gserviceaccount.com', publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
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
      return errorPage(res, GOOGLE, 'redirect_uri_mismatch', 'Error 400: redirect_uri_mismatch. The redirect URI in the request does not match the ones authorized for the OAuth client.');
    }
    if (params.get('response_type') !== 'code') return errorPage(res, GOOGLE, 'invalid_request', 'Required parameter is missing: response_type');
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
      scope.split(' ').map((item) =>
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
      const accessToken = store.issue({ provider: 'google', scope: 'https://www.googleapis.com/auth/bigquery', offline: false }, null, 3599);
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
    for (const [key, candidate] of store.accessTokens) if (key === value || (refresh && candidate.refreshToken === refresh)) store.accessTokens.delete(key);
    return json(res, 200, {});
  }

  const googleUnauthenticated = (res: ServerResponse) =>
    json(res, 401, {
      error: {
        code: 401,
        message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        status: 'UNAUTHENTICATED',
      },
    });

  const adsFailure = (res: ServerResponse, status: number, statusText: string, errorCode: Json, message: string) =>
    json(res, status, {
      error: {
        code: status,
        message: status === 403 ? 'The caller does not have permission' : 'Request contains an invalid argument.',
        status: statusText,
        details: [
          {
            '@type': 'type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure',
            errors: [{ errorCode, message }],
            requestId: token(''),
          },
        ],
      },
    });

  /** Who may act on a customer: itself when directly accessible, or through its manager. */
  function adsAccessAllowed(customerId: string, loginCustomerId: string | undefined): boolean {
    const login = loginCustomerId ?? customerId;
    if (!GOOGLE_DIRECT.includes(login)) return false;
    return login === customerId || Boolean(GOOGLE_CUSTOMERS[login]?.clients?.includes(customerId));
  }

  /** Data Manager knows the same customers: a client is operated through its manager as loginAccount. */
  const dataManagerWorld: DataManagerWorld = {
    canOperate: (operatingAccountId, loginAccountId) => Boolean(GOOGLE_CUSTOMERS[operatingAccountId]) && adsAccessAllowed(operatingAccountId, loginAccountId),
    hasEnabledConversionAction: (accountId, conversionActionId) =>
      !GOOGLE_CUSTOMERS[accountId]?.manager && CONVERSION_ACTIONS.some((action) => action.id === conversionActionId && action.status === 'ENABLED'),
  };

  async function googleAdsSearch(req: IncomingMessage, res: ServerResponse, customerId: string) {
    const body = JSON.parse((await readBody(req)) || '{}') as { query?: string };
    const login = req.headers['login-customer-id'] as string | undefined;
    if (login !== undefined && !/^\d{10}$/.test(login)) {
      return adsFailure(res, 400, 'INVALID_ARGUMENT', { requestError: 'INVALID_LOGIN_CUSTOMER_ID' }, 'login-customer-id must be 10 digits without dashes.');
    }
    if (!GOOGLE_CUSTOMERS[customerId] || !adsAccessAllowed(customerId, login)) {
      return adsFailure(res, 403, 'PERMISSION_DENIED', { authorizationError: 'USER_PERMISSION_DENIED' }, "User doesn't have permission to access customer. Note: If you're accessing a client customer, the manager's customer id must be set in the 'login-customer-id' header.");
    }
    const query = (body.query ?? '').replace(/\s+/g, ' ').trim();
    if (!query) return adsFailure(res, 400, 'INVALID_ARGUMENT', { queryError: 'EXPECTED_SELECT' }, 'Query must not be empty.');
    const from = /\bFROM (\w+)/i.exec(query)?.[1];
    if (from === 'customer_client') {
      const self = GOOGLE_CUSTOMERS[customerId]!;
      const rows = [{ id: customerId, level: 0 }, ...(self.clients ?? []).map((id) => ({ id, level: 1 }))].map(({ id, level }) => ({
        customerClient: {
          resourceName: `customers/${customerId}/customerClients/${id}`,
          id,
          descriptiveName: GOOGLE_CUSTOMERS[id]!.name,
          currencyCode: GOOGLE_CUSTOMERS[id]!.currency,
          manager: GOOGLE_CUSTOMERS[id]!.manager,
          level: String(level),
        },
      }));
      return json(res, 200, { results: rows, fieldMask: 'customerClient.id,customerClient.descriptiveName,customerClient.currencyCode,customerClient.manager,customerClient.level' });
    }
    if (from === 'conversion_action') {
      if (GOOGLE_CUSTOMERS[customerId]!.manager) return json(res, 200, { results: [], fieldMask: 'conversionAction.id' });
      const enabledOnly = /status = 'ENABLED'/.test(query);
      const rows = CONVERSION_ACTIONS.filter((action) => !enabledOnly || action.status === 'ENABLED').map((action) => ({
        conversionAction: { resourceName: `customers/${customerId}/conversionActions/${action.id}`, ...action },
      }));
      return json(res, 200, { results: rows, fieldMask: 'conversionAction.id,conversionAction.name,conversionAction.status' });
    }
    return adsFailure(res, 400, 'INVALID_ARGUMENT', { queryError: 'INVALID_RESOURCE_NAME' }, `The sandbox does not serve this query: ${query.slice(0, 80)}`);
  }

  async function google(req: IncomingMessage, res: ServerResponse, url: URL, path: string) {
    if (req.method === 'GET' && path === '/google/o/oauth2/v2/auth') return googleAuthorize(res, url);
    if (req.method === 'POST' && path === '/google/consent') return decide(req, res, store, GOOGLE);
    if (req.method === 'POST' && path === '/google/token') return googleToken(req, res);
    if (req.method === 'POST' && path === '/google/revoke') return googleRevoke(req, res, url);
    if (req.method === 'POST' && path === '/datamanager/v1/events:ingest') return ingestEvents(req, res, url, store, dataManagerWorld);
    const caller = store.bearerToken(req, url, 'google');
    if (path === '/google/userinfo') return caller ? json(res, 200, { ...GOOGLE_USER, email_verified: true }) : googleUnauthenticated(res);
    let match: RegExpExecArray | null;
    if (path === '/googleads/v26/customers:listAccessibleCustomers' && req.method === 'GET') {
      if (!caller || !caller.scope.includes('/auth/adwords')) return googleUnauthenticated(res);
      return json(res, 200, { resourceNames: GOOGLE_DIRECT.map((id) => `customers/${id}`) });
    }
    if ((match = /^\/googleads\/v26\/customers\/(\d+)\/googleAds:search$/.exec(path)) && req.method === 'POST') {
      if (!caller || !caller.scope.includes('/auth/adwords')) return googleUnauthenticated(res);
      return googleAdsSearch(req, res, match[1]!);
    }
    if (path === '/bigquery/bigquery/v2/projects' && req.method === 'GET') {
      if (!caller || !caller.scope.includes('/auth/bigquery')) return googleUnauthenticated(res);
      return json(res, 200, {
        kind: 'bigquery#projectList',
        etag: 'sandbox',
        totalItems: BIGQUERY_PROJECTS.length,
        projects: BIGQUERY_PROJECTS.map((project) => ({
          kind: 'bigquery#project',
          id: project.id,
          numericId: '12345',
          projectReference: { projectId: project.id },
          friendlyName: project.friendlyName,
        })),
      });
    }
    return json(res, 404, { error: { code: 404, message: `Not found: ${path}`, status: 'NOT_FOUND' } });
  }

  return {
    owns: (path) => path.startsWith('/google/') || path.startsWith('/googleads/') || path.startsWith('/datamanager/') || path.startsWith('/bigquery/'),
    handle: (req, res, url) => google(req, res, url, url.pathname),
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
    GOOGLE_ADS_API_URL: `${url}/googleads`,
    GOOGLE_DATA_MANAGER_API_URL: `${url}/datamanager/v1`,
    BIGQUERY_API_URL: `${url}/bigquery`,
  };
}
