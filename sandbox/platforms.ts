/**
 * The local sandbox of the ad and analytics platforms: one server that plays Google (OAuth, Google
 * Ads API v26, BigQuery), Meta (Facebook Login, Graph API v25.0), Microsoft (identity platform v2.0,
 * Advertising REST v13) and Mixpanel (service accounts per data residency). Each part answers in the
 * platform's wire format and error shapes and refuses what the platform refuses: an unregistered
 * redirect URI, a wrong client secret, a code used twice or sent with another redirect URI, a
 * revoked or expired token, a Google Ads client queried without its manager as login-customer-id.
 *
 * A person clicks through its consent pages ('Allow' / 'Cancel'); `npm run dev` and the e2e tests
 * start it. /__sandbox shows what it holds and revokes a platform's logins, as a user removing
 * access in their account settings would.
 */
import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
// The redirect URIs registered with each platform: the app's return routes, nothing else.
import { RETURN_PATHS } from '@/lib/integrations/platforms';
import { serve } from '@/tests/fakes/httpServer';

type Provider = 'google' | 'meta' | 'microsoft';
type Json = Record<string, unknown>;

export interface FakePlatformsOptions {
  port?: number;
  /** The app's origin; its OAuth return routes are the registered redirect URIs. */
  appUrl: string;
}

export interface FakePlatforms {
  url: string;
  /** Kills every login of a provider (the user removed the app's access). */
  revokeAll: (provider: Provider) => void;
  /** A service-account JSON key the fake Google accepts, for BigQuery. */
  serviceAccountKey: string;
  close: () => Promise<void>;
}

export const SANDBOX_CLIENTS = {
  google: { id: 'sandbox-google-client.apps.googleusercontent.com', secret: 'sandbox-google-secret' },
  meta: { id: '100200300400500', secret: 'sandbox-meta-secret' },
  microsoft: { id: '00000000-5a4d-4b6f-8e1a-5a4db0c0ffee', secret: 'sandbox-microsoft-secret' },
  microsoftDeveloperToken: 'SANDBOXDEVTOKEN',
};

export const SANDBOX_MIXPANEL = {
  username: 'signalbridge.sandbox.mp-service-account',
  secret: 'sandbox-mixpanel-secret',
  projects: { US: { id: '3001', name: 'Acme Web (US)' }, EU: { id: '3002', name: 'Acme Web (EU)' }, IN: { id: '3003', name: 'Acme Web (IN)' } },
} as const;

/** A key for local credentials only (npm run dev, tests); production sets its own secret. */
const SANDBOX_CREDENTIALS_KEY = Buffer.alloc(32, 7).toString('base64');

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
const META_USER = { id: '10001', name: 'Sandbox Marketer' };
const META_AD_ACCOUNTS = [
  { id: 'act_101', account_id: '101', name: 'Acme Shoes (Meta)', currency: 'USD', account_status: 1 },
  { id: 'act_102', account_id: '102', name: 'Acme Outlet (Meta)', currency: 'USD', account_status: 1 },
];
const META_PIXELS: Record<string, Array<{ id: string; name: string }>> = {
  '101': [{ id: '555000111', name: 'Acme Shoes Pixel' }],
  '102': [{ id: '555000222', name: 'Acme Outlet Pixel' }],
};
const MICROSOFT_USER = { Id: 7001, UserName: 'sandbox.marketer', ContactInfo: { Email: 'sandbox.marketer@outlook.example' } };
const MICROSOFT_ACCOUNTS = [
  { Id: 301, Name: 'Acme Shoes (Microsoft)', Number: 'F1000301', ParentCustomerId: 9001, CurrencyCode: 'USD', AccountLifeCycleStatus: 'Active' },
  { Id: 302, Name: 'Acme Outlet (Microsoft)', Number: 'F1000302', ParentCustomerId: 9001, CurrencyCode: 'USD', AccountLifeCycleStatus: 'Active' },
];
const MICROSOFT_GOALS = [
  { Id: 8001, Name: 'Offline purchase', Type: 'OfflineConversion', Status: 'Active' },
  { Id: 8002, Name: 'Qualified lead', Type: 'OfflineConversion', Status: 'Active' },
];

const token = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

const escapeHtml = (value: unknown) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const BRAND: Record<Provider, { name: string; color: string; account: string }> = {
  google: { name: 'Google', color: '#1a73e8', account: GOOGLE_USER.email },
  meta: { name: 'Facebook', color: '#0866ff', account: META_USER.name },
  microsoft: { name: 'Microsoft', color: '#0067b8', account: MICROSOFT_USER.ContactInfo.Email },
};

function page(res: ServerResponse, status: number, title: string, body: string) {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:460px;margin:4rem auto;padding:0 1rem;color:#202124}
.card{border:1px solid #dadce0;border-radius:8px;padding:1.5rem}ul{padding-left:1.2rem}li{margin:.3rem 0}
button{font:inherit;font-weight:600;border-radius:6px;padding:.6rem 1.2rem;cursor:pointer;border:1px solid #dadce0;background:#fff}
button.allow{color:#fff;border-color:transparent}.actions{display:flex;gap:.75rem;justify-content:flex-end;margin-top:1.5rem}
.badge{background:#fff4e6;color:#a34a00;border-radius:999px;padding:.1rem .5rem;font-size:.8rem}.muted{color:#5f6368}</style>
</head><body><p><span class="badge">Local platform sandbox</span></p>${body}</body></html>`);
}

function errorPage(res: ServerResponse, provider: Provider, error: string, description: string) {
  page(
    res,
    400,
    `${BRAND[provider].name} — error`,
    `<div class="card"><h1>${escapeHtml(BRAND[provider].name)}: ${escapeHtml(error)}</h1><p>${escapeHtml(description)}</p></div>`,
  );
}

interface Grant {
  provider: Provider;
  scope: string;
  offline: boolean;
}

interface Code extends Grant {
  clientId: string;
  redirectUri: string;
  expiresAt: number;
}

interface AccessToken extends Grant {
  expiresAt: number;
  refreshToken: string | null;
}

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

export async function startFakePlatforms(options: FakePlatformsOptions): Promise<FakePlatforms> {
  const registered = new Set(RETURN_PATHS.map((path) => `${options.appUrl.replace(/\/$/, '')}${path}`));
  const codes = new Map<string, Code>();
  const usedCodes = new Set<string>();
  const refreshTokens = new Map<string, Grant>();
  const accessTokens = new Map<string, AccessToken>();
  const revokedProviders = new Set<Provider>();
  let base = '';

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
      token_uri: `${base}/google/token`,
    });

  function issue(grant: Grant, refreshToken: string | null, ttlSeconds: number) {
    const accessToken = token(grant.provider === 'google' ? 'ya29.' : grant.provider === 'meta' ? 'EAAB' : 'EwB');
    accessTokens.set(accessToken, { ...grant, refreshToken, expiresAt: Date.now() + ttlSeconds * 1000 });
    return accessToken;
  }

  function revokeAll(provider: Provider) {
    for (const [key, grant] of refreshTokens) if (grant.provider === provider) refreshTokens.delete(key);
    for (const [key, grant] of accessTokens) if (grant.provider === provider) accessTokens.delete(key);
    revokedProviders.add(provider);
  }

  function bearerToken(req: IncomingMessage, url: URL, provider: Provider): AccessToken | null {
    const header = req.headers.authorization ?? '';
    const value = header.startsWith('Bearer ') ? header.slice(7) : provider === 'meta' ? (url.searchParams.get('access_token') ?? '') : '';
    const found = accessTokens.get(value);
    if (!found || found.provider !== provider || found.expiresAt < Date.now()) return null;
    return found;
  }

  // ---- consent screens (shared) -------------------------------------------------------------------
  function consent(res: ServerResponse, provider: Provider, fields: Record<string, string>, scopes: string[]) {
    const brand = BRAND[provider];
    const hidden = Object.entries(fields)
      .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
      .join('');
    page(
      res,
      200,
      `Sign in with ${brand.name}`,
      `<div class="card"><h1>SignalBridge wants to access your ${escapeHtml(brand.name)} account</h1>
<p class="muted">Signed in as <strong>${escapeHtml(brand.account)}</strong></p>
<p>This will allow SignalBridge to:</p><ul>${scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('')}</ul>
<form method="post" action="${base}/${provider}/consent">${hidden}<div class="actions">
<button type="submit" name="decision" value="deny">Cancel</button>
<button type="submit" name="decision" value="allow" class="allow" style="background:${brand.color}">Allow</button></div></form></div>`,
    );
  }

  async function decide(req: IncomingMessage, res: ServerResponse, provider: Provider) {
    const form = new URLSearchParams(await readBody(req));
    const redirectUri = form.get('redirect_uri') ?? '';
    if (!registered.has(redirectUri)) return errorPage(res, provider, 'redirect_uri_mismatch', 'The redirect URI is not registered.');
    const target = new URL(redirectUri);
    const state = form.get('state');
    if (form.get('decision') !== 'allow') {
      target.searchParams.set('error', 'access_denied');
      if (provider === 'meta') target.searchParams.set('error_reason', 'user_denied');
    } else {
      const code = token(provider === 'google' ? '4/0A' : provider === 'meta' ? 'AQ' : 'M.C5');
      codes.set(code, {
        provider,
        clientId: form.get('client_id') ?? '',
        redirectUri,
        scope: form.get('scope') ?? '',
        offline: form.get('offline') === 'true',
        expiresAt: Date.now() + 10 * 60 * 1000,
      });
      revokedProviders.delete(provider);
      target.searchParams.set('code', code);
      if (provider === 'google') target.searchParams.set('scope', form.get('scope') ?? '');
    }
    if (state !== null) target.searchParams.set('state', state);
    res.writeHead(302, { Location: target.toString() });
    res.end();
  }

  /** A code is good once, for the client and redirect URI it was issued to, for ten minutes. */
  function redeem(code: string, provider: Provider, clientId: string, redirectUri: string): Code | 'used' | 'mismatch' | null {
    if (usedCodes.has(code)) return 'used';
    const found = codes.get(code);
    if (!found || found.provider !== provider || found.expiresAt < Date.now()) return null;
    codes.delete(code);
    usedCodes.add(code);
    if (found.clientId !== clientId || found.redirectUri !== redirectUri) return 'mismatch';
    return found;
  }

  // ---- Google -------------------------------------------------------------------------------------
  function googleAuthorize(res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('client_id') !== SANDBOX_CLIENTS.google.id) {
      return errorPage(res, 'google', 'invalid_client', 'The OAuth client was not found. (Error 401: invalid_client)');
    }
    if (!registered.has(params.get('redirect_uri') ?? '')) {
      return errorPage(res, 'google', 'redirect_uri_mismatch', 'Error 400: redirect_uri_mismatch. The redirect URI in the request does not match the ones authorized for the OAuth client.');
    }
    if (params.get('response_type') !== 'code') return errorPage(res, 'google', 'invalid_request', 'Required parameter is missing: response_type');
    const scope = params.get('scope') ?? '';
    if (!scope) return errorPage(res, 'google', 'invalid_request', 'Missing required parameter: scope');
    consent(
      res,
      'google',
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
      const checked = verifyAssertion(form.get('assertion') ?? '', serviceAccount, `${base}/google/token`);
      if (!checked.ok) return oauthError(400, 'invalid_grant', checked.error!);
      const accessToken = issue({ provider: 'google', scope: 'https://www.googleapis.com/auth/bigquery', offline: false }, null, 3599);
      return json(res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
    }
    if (form.get('client_id') !== SANDBOX_CLIENTS.google.id || form.get('client_secret') !== SANDBOX_CLIENTS.google.secret) {
      return oauthError(401, 'invalid_client', 'The OAuth client was not found.');
    }
    if (grantType === 'authorization_code') {
      const redeemed = redeem(form.get('code') ?? '', 'google', form.get('client_id')!, form.get('redirect_uri') ?? '');
      if (redeemed === 'mismatch') return oauthError(400, 'redirect_uri_mismatch', 'Bad Request');
      if (!redeemed || redeemed === 'used') return oauthError(400, 'invalid_grant', 'Malformed auth code.');
      const refreshToken = redeemed.offline ? token('1//0g') : null;
      if (refreshToken) refreshTokens.set(refreshToken, redeemed);
      const accessToken = issue(redeemed, refreshToken, 3599);
      return json(res, 200, {
        access_token: accessToken,
        expires_in: 3599,
        token_type: 'Bearer',
        scope: redeemed.scope,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
      });
    }
    if (grantType === 'refresh_token') {
      const grant = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!grant || grant.provider !== 'google') return oauthError(400, 'invalid_grant', 'Token has been expired or revoked.');
      const accessToken = issue(grant, form.get('refresh_token'), 3599);
      return json(res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer', scope: grant.scope });
    }
    return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType ?? ''}`);
  }

  async function googleRevoke(req: IncomingMessage, res: ServerResponse, url: URL) {
    const value = new URLSearchParams(await readBody(req)).get('token') ?? url.searchParams.get('token') ?? '';
    const grant = refreshTokens.get(value);
    const access = accessTokens.get(value);
    if (!grant && !access) return json(res, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
    const refresh = grant ? value : access?.refreshToken;
    if (refresh) refreshTokens.delete(refresh);
    for (const [key, candidate] of accessTokens) if (key === value || (refresh && candidate.refreshToken === refresh)) accessTokens.delete(key);
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
    if (req.method === 'POST' && path === '/google/consent') return decide(req, res, 'google');
    if (req.method === 'POST' && path === '/google/token') return googleToken(req, res);
    if (req.method === 'POST' && path === '/google/revoke') return googleRevoke(req, res, url);
    const caller = bearerToken(req, url, 'google');
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

  // ---- Meta -----------------------------------------------------------------------------------------
  const graphError = (res: ServerResponse, status: number, code: number, message: string, subcode?: number) =>
    json(res, status, { error: { message, type: 'OAuthException', code, ...(subcode ? { error_subcode: subcode } : {}), fbtrace_id: token('A') } });

  async function meta(req: IncomingMessage, res: ServerResponse, url: URL, path: string) {
    const params = url.searchParams;
    if (req.method === 'GET' && path === '/meta/v25.0/dialog/oauth') {
      if (params.get('client_id') !== SANDBOX_CLIENTS.meta.id) return errorPage(res, 'meta', 'Invalid App ID', 'The provided app ID does not look like a valid app ID.');
      if (!registered.has(params.get('redirect_uri') ?? '')) {
        return errorPage(res, 'meta', "URL blocked", "This redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.");
      }
      const scope = (params.get('scope') ?? '').split(',').filter(Boolean);
      return consent(res, 'meta', { client_id: params.get('client_id')!, redirect_uri: params.get('redirect_uri')!, scope: scope.join(','), state: params.get('state') ?? '' }, [
        'Manage your ads (ads_management)',
        'Read your ads performance (ads_read)',
        'Manage your business (business_management)',
      ].filter((_label, index) => scope.includes(['ads_management', 'ads_read', 'business_management'][index]!)));
    }
    if (req.method === 'POST' && path === '/meta/consent') return decide(req, res, 'meta');
    if (req.method === 'DELETE' && path === '/meta/graph/v25.0/me/permissions') {
      if (!bearerToken(req, url, 'meta')) return graphError(res, 400, 190, 'Invalid OAuth access token data.');
      for (const [key, grant] of accessTokens) if (grant.provider === 'meta') accessTokens.delete(key);
      return json(res, 200, { success: true });
    }
    if (req.method !== 'GET') return graphError(res, 400, 100, 'Unsupported post request.');

    if (path === '/meta/graph/v25.0/oauth/access_token') {
      if (params.get('client_id') !== SANDBOX_CLIENTS.meta.id || params.get('client_secret') !== SANDBOX_CLIENTS.meta.secret) {
        return graphError(res, 400, 1, 'Error validating client secret.');
      }
      if (params.get('grant_type') === 'fb_exchange_token') {
        const short = accessTokens.get(params.get('fb_exchange_token') ?? '');
        if (!short || short.provider !== 'meta') return graphError(res, 400, 190, 'Invalid OAuth access token - Cannot parse access token');
        const longToken = issue(short, null, 60 * 24 * 3600);
        return json(res, 200, { access_token: longToken, token_type: 'bearer', expires_in: 5184000 });
      }
      const redeemed = redeem(params.get('code') ?? '', 'meta', params.get('client_id')!, params.get('redirect_uri') ?? '');
      if (redeemed === 'used') return graphError(res, 400, 100, 'This authorization code has been used.', 36009);
      if (redeemed === 'mismatch') {
        return graphError(res, 400, 100, 'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request', 36008);
      }
      if (!redeemed) return graphError(res, 400, 100, 'Invalid verification code format.', 36007);
      return json(res, 200, { access_token: issue(redeemed, null, 2 * 3600), token_type: 'bearer', expires_in: 7200 });
    }
    const caller = bearerToken(req, url, 'meta');
    if (!caller) {
      return revokedProviders.has('meta')
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

  // ---- Microsoft ------------------------------------------------------------------------------------
  const aadError = (res: ServerResponse, status: number, error: string, code: number, description: string) =>
    json(res, status, {
      error,
      error_description: `AADSTS${code}: ${description} Trace ID: ${token('')} Timestamp: ${new Date().toISOString()}`,
      error_codes: [code],
      timestamp: new Date().toISOString(),
      trace_id: token(''),
      correlation_id: token(''),
    });

  const adApiFault = (res: ServerResponse, status: number, code: number, errorCode: string, message: string) =>
    json(res, status, { TrackingId: token(''), Type: 'AdApiFaultDetail', Errors: [{ Code: code, Details: null, ErrorCode: errorCode, FieldPath: null, ForwardCompatibilityMap: null, Message: message, Type: 'AdApiError' }] });

  async function microsoft(req: IncomingMessage, res: ServerResponse, url: URL, path: string) {
    const params = url.searchParams;
    if (req.method === 'GET' && path === '/microsoft/common/oauth2/v2.0/authorize') {
      if (params.get('client_id') !== SANDBOX_CLIENTS.microsoft.id) {
        return errorPage(res, 'microsoft', 'unauthorized_client', "AADSTS700016: Application with identifier was not found in the directory.");
      }
      if (!registered.has(params.get('redirect_uri') ?? '')) {
        return errorPage(res, 'microsoft', 'invalid_request', 'AADSTS50011: The redirect URI specified in the request does not match the redirect URIs configured for the application.');
      }
      const scope = params.get('scope') ?? '';
      if (!scope.includes('https://ads.microsoft.com/msads.manage')) return errorPage(res, 'microsoft', 'invalid_scope', 'AADSTS70011: The provided value for the input parameter scope is not valid.');
      return consent(
        res,
        'microsoft',
        { client_id: params.get('client_id')!, redirect_uri: params.get('redirect_uri')!, scope, state: params.get('state') ?? '', offline: String(scope.split(' ').includes('offline_access')) },
        ['Manage your Microsoft Advertising accounts', ...(scope.includes('offline_access') ? ['Maintain access to data you have given it access to'] : [])],
      );
    }
    if (req.method === 'POST' && path === '/microsoft/consent') return decide(req, res, 'microsoft');
    if (req.method === 'POST' && path === '/microsoft/common/oauth2/v2.0/token') {
      const form = new URLSearchParams(await readBody(req));
      if (form.get('client_id') !== SANDBOX_CLIENTS.microsoft.id || form.get('client_secret') !== SANDBOX_CLIENTS.microsoft.secret) {
        return aadError(res, 401, 'invalid_client', 7000215, 'Invalid client secret provided.');
      }
      if (!form.get('scope')) return aadError(res, 400, 'invalid_request', 900144, "The request body must contain the following parameter: 'scope'.");
      let grant: Grant;
      if (form.get('grant_type') === 'authorization_code') {
        const redeemed = redeem(form.get('code') ?? '', 'microsoft', form.get('client_id')!, form.get('redirect_uri') ?? '');
        if (redeemed === 'used') return aadError(res, 400, 'invalid_grant', 54005, 'OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.');
        if (redeemed === 'mismatch') return aadError(res, 400, 'invalid_grant', 50148, 'The redirect_uri does not match the one used in the authorization request.');
        if (!redeemed) return aadError(res, 400, 'invalid_grant', 70000, 'The provided authorization code or refresh token has expired or is invalid.');
        grant = redeemed;
      } else if (form.get('grant_type') === 'refresh_token') {
        const old = form.get('refresh_token') ?? '';
        const found = refreshTokens.get(old);
        if (!found || found.provider !== 'microsoft') {
          return aadError(res, 400, 'invalid_grant', 70000, 'The provided authorization code or refresh token has expired or is invalid.');
        }
        refreshTokens.delete(old); // refresh tokens rotate
        grant = found;
      } else {
        return aadError(res, 400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.');
      }
      const refreshToken = grant.offline ? token('M.C5_') : null;
      if (refreshToken) refreshTokens.set(refreshToken, grant);
      return json(res, 200, {
        token_type: 'Bearer',
        scope: grant.scope,
        expires_in: 3600,
        ext_expires_in: 3600,
        access_token: issue(grant, refreshToken, 3600),
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
      });
    }
    if (req.method !== 'POST') return adApiFault(res, 404, 0, 'NotFound', 'Not found');
    if (req.headers.developertoken !== SANDBOX_CLIENTS.microsoftDeveloperToken) return adApiFault(res, 401, 105, 'InvalidCredentials', 'Authentication failed. Either supplied credentials are invalid or the account is inactive.');
    if (!bearerToken(req, url, 'microsoft')) return adApiFault(res, 401, 109, 'AuthenticationTokenExpired', 'Authentication token expired. Please renew it or obtain a new token.');
    if (path === '/microsoft/clientcenter/CustomerManagement/v13/User/Query') {
      return json(res, 200, { User: { ...MICROSOFT_USER, Name: { FirstName: 'Sandbox', LastName: 'Marketer' } }, CustomerRoles: [{ CustomerId: 9001, RoleId: 41, AccountIds: null }] });
    }
    if (path === '/microsoft/clientcenter/CustomerManagement/v13/Accounts/Search') {
      const body = JSON.parse((await readBody(req)) || '{}') as { Predicates?: Array<{ Field: string; Value: string }>; PageInfo?: unknown };
      if (!body.PageInfo) return adApiFault(res, 400, 1001, 'NullParameter', 'PageInfo cannot be null.');
      const userPredicate = body.Predicates?.find((predicate) => predicate.Field === 'UserId');
      const accounts = !userPredicate || userPredicate.Value === String(MICROSOFT_USER.Id) ? MICROSOFT_ACCOUNTS : [];
      return json(res, 200, { Accounts: accounts });
    }
    if (path === '/microsoft/campaign/CampaignManagement/v13/ConversionGoals/QueryByIds') {
      const account = MICROSOFT_ACCOUNTS.find((candidate) => String(candidate.Id) === req.headers.customeraccountid);
      if (!account) return adApiFault(res, 400, 1102, 'CampaignServiceInvalidAccountId', 'The account ID is invalid.');
      if (req.headers.customerid !== String(account.ParentCustomerId)) {
        return adApiFault(res, 400, 1030, 'CampaignServiceAccountIdHasToBeSpecified', 'The CustomerId header must be the customer that owns the account.');
      }
      const body = JSON.parse((await readBody(req)) || '{}') as { ConversionGoalTypes?: string };
      if (!body.ConversionGoalTypes) return adApiFault(res, 400, 1001, 'NullParameter', 'ConversionGoalTypes cannot be null.');
      return json(res, 200, { ConversionGoals: MICROSOFT_GOALS, PartialErrors: null });
    }
    return adApiFault(res, 404, 0, 'NotFound', `Not found: ${path}`);
  }

  // ---- Mixpanel -------------------------------------------------------------------------------------
  function mixpanel(req: IncomingMessage, res: ServerResponse, residency: 'US' | 'EU' | 'IN', path: string) {
    if (req.method !== 'GET' || path !== '/api/app/me') return json(res, 404, { status: 'error', error: 'Not found' });
    const header = req.headers.authorization ?? '';
    const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString() : '';
    if (decoded !== `${SANDBOX_MIXPANEL.username}:${SANDBOX_MIXPANEL.secret}`) {
      return json(res, 401, { status: 'error', error: 'Invalid credentials' }, { 'WWW-Authenticate': 'Basic realm="Mixpanel"' });
    }
    const project = SANDBOX_MIXPANEL.projects[residency];
    return json(res, 200, {
      status: 'ok',
      results: {
        id: 424242,
        name: 'SignalBridge sandbox',
        email: SANDBOX_MIXPANEL.username,
        is_service_account: true,
        projects: { [project.id]: { name: project.name, organization_id: 777, domain: residency === 'US' ? 'mixpanel.com' : `${residency.toLowerCase()}.mixpanel.com`, role: { name: 'Admin' } } },
      },
    });
  }

  // ---- sandbox control ------------------------------------------------------------------------------
  function sandboxIndex(res: ServerResponse) {
    page(
      res,
      200,
      'Platform sandbox',
      `<h1>Platform sandbox</h1><p class="muted">Fake Google, Meta, Microsoft and Mixpanel for local development.</p>
<h2>Credentials to paste</h2><ul>
<li>Mixpanel: username <code>${SANDBOX_MIXPANEL.username}</code>, secret <code>${SANDBOX_MIXPANEL.secret}</code>, project ${SANDBOX_MIXPANEL.projects.US.id} (US), ${SANDBOX_MIXPANEL.projects.EU.id} (EU), ${SANDBOX_MIXPANEL.projects.IN.id} (IN)</li>
<li>Stripe restricted key: <code>rk_test_sandboxChargesRead</code></li>
<li>BigQuery service-account key: <a href="${base}/__sandbox/google/service-account-key.json">download</a></li></ul>
<h2>Break a login</h2><p>Revoking makes the app's next call fail, as when a user removes access in their account.</p>
${(['google', 'meta', 'microsoft'] as const)
  .map((provider) => `<form method="post" action="${base}/__sandbox/${provider}/revoke"><button>Revoke every ${BRAND[provider].name} login</button></form>`)
  .join('<br>')}`,
    );
  }

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    const path = url.pathname;
    if (path === '/' || path === '/__sandbox') return sandboxIndex(res);
    const revoke = /^\/__sandbox\/(google|meta|microsoft)\/revoke$/.exec(path);
    if (revoke && req.method === 'POST') {
      revokeAll(revoke[1] as Provider);
      return req.headers.accept?.includes('text/html') ? sandboxIndex(res) : json(res, 200, { revoked: revoke[1] });
    }
    if (path === '/__sandbox/google/service-account-key.json') return json(res, 200, JSON.parse(serviceAccountKeyOf()));
    if (path.startsWith('/google/') || path.startsWith('/googleads/') || path.startsWith('/bigquery/')) return google(req, res, url, path);
    if (path.startsWith('/meta/')) return meta(req, res, url, path);
    if (path.startsWith('/microsoft/')) return microsoft(req, res, url, path);
    const mixpanelPath = /^\/mixpanel\/(us|eu|in)(\/.*)$/.exec(path);
    if (mixpanelPath) return mixpanel(req, res, mixpanelPath[1]!.toUpperCase() as 'US' | 'EU' | 'IN', mixpanelPath[2]!);
    return json(res, 404, { error: 'not_found' });
  };
  const served = await serve('fake platforms', route, { port: options.port });
  base = served.url;
  return {
    url: base,
    revokeAll,
    get serviceAccountKey() {
      return serviceAccountKeyOf();
    },
    close: served.close,
  };
}

/**
 * What a person does on a sandbox consent page, without a browser (API tests, the bench): open it,
 * press Allow (or Cancel), and return where the redirect goes (the app's return route with code and state).
 */
export async function consentTo(authorizeUrl: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const html = await (await fetch(authorizeUrl)).text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`No consent form: ${html.slice(0, 300)}`);
  const unescape = (value: string) => value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const fields = new URLSearchParams([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [match[1]!, unescape(match[2]!)]));
  fields.set('decision', decision);
  const response = await fetch(action, { method: 'POST', body: fields, redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
  return new URL(response.headers.get('location')!);
}

/** The environment that points the app at this sandbox. */
export function platformsEnv(fake: FakePlatforms): Record<string, string> {
  return {
    GOOGLE_OAUTH_CLIENT_ID: SANDBOX_CLIENTS.google.id,
    GOOGLE_OAUTH_CLIENT_SECRET: SANDBOX_CLIENTS.google.secret,
    GOOGLE_OAUTH_AUTHORIZE_URL: `${fake.url}/google/o/oauth2/v2/auth`,
    GOOGLE_OAUTH_TOKEN_URL: `${fake.url}/google/token`,
    GOOGLE_USERINFO_URL: `${fake.url}/google/userinfo`,
    GOOGLE_ADS_API_URL: `${fake.url}/googleads`,
    BIGQUERY_API_URL: `${fake.url}/bigquery`,
    META_APP_ID: SANDBOX_CLIENTS.meta.id,
    META_APP_SECRET: SANDBOX_CLIENTS.meta.secret,
    META_OAUTH_DIALOG_URL: `${fake.url}/meta/v25.0/dialog/oauth`,
    META_GRAPH_API_URL: `${fake.url}/meta/graph/v25.0`,
    MICROSOFT_OAUTH_CLIENT_ID: SANDBOX_CLIENTS.microsoft.id,
    MICROSOFT_OAUTH_CLIENT_SECRET: SANDBOX_CLIENTS.microsoft.secret,
    MICROSOFT_ADS_DEVELOPER_TOKEN: SANDBOX_CLIENTS.microsoftDeveloperToken,
    MICROSOFT_LOGIN_URL: `${fake.url}/microsoft/common/oauth2/v2.0`,
    MICROSOFT_CUSTOMER_MANAGEMENT_URL: `${fake.url}/microsoft/clientcenter/CustomerManagement/v13`,
    MICROSOFT_CAMPAIGN_MANAGEMENT_URL: `${fake.url}/microsoft/campaign/CampaignManagement/v13`,
    MIXPANEL_API_URL_US: `${fake.url}/mixpanel/us`,
    MIXPANEL_API_URL_EU: `${fake.url}/mixpanel/eu`,
    MIXPANEL_API_URL_IN: `${fake.url}/mixpanel/in`,
    NEXT_PUBLIC_PLATFORM_SANDBOX_URL: `${fake.url}/__sandbox`,
    // Credentials sealed locally use a fixed key; production sets its own secret.
    CREDENTIALS_ENCRYPTION_KEY: SANDBOX_CREDENTIALS_KEY,
  };
}


