/**
 * The sandbox's Microsoft: the identity platform v2.0 (consent, code and rotating refresh grants, AADSTS
 * errors) and Microsoft Advertising REST v13 (the user, accounts, conversion goals; developer token
 * and CustomerId headers checked).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import { json, readBody } from '@/sandbox/server';
import { token, type Grant, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';

export const MICROSOFT_CLIENT = { id: '00000000-5a4d-4b6f-8e1a-5a4db0c0ffee', secret: 'sandbox-microsoft-secret' };
export const MICROSOFT_DEVELOPER_TOKEN = 'SANDBOXDEVTOKEN';

const MICROSOFT_USER = { Id: 7001, UserName: 'sandbox.marketer', ContactInfo: { Email: 'sandbox.marketer@outlook.example' } };
const MICROSOFT_ACCOUNTS = [
  { Id: 301, Name: 'Acme Shoes (Microsoft)', Number: 'F1000301', ParentCustomerId: 9001, CurrencyCode: 'USD', AccountLifeCycleStatus: 'Active' },
  { Id: 302, Name: 'Acme Outlet (Microsoft)', Number: 'F1000302', ParentCustomerId: 9001, CurrencyCode: 'USD', AccountLifeCycleStatus: 'Active' },
];
const MICROSOFT_GOALS = [
  { Id: 8001, Name: 'Offline purchase', Type: 'OfflineConversion', Status: 'Active' },
  { Id: 8002, Name: 'Qualified lead', Type: 'OfflineConversion', Status: 'Active' },
];
export const MICROSOFT: Brand = { provider: 'microsoft', name: 'Microsoft', color: '#0067b8', account: MICROSOFT_USER.ContactInfo.Email };

/** Microsoft's part of the sandbox. */
export function createMicrosoft(store: SandboxStore): SandboxPlatform {
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
      if (params.get('client_id') !== MICROSOFT_CLIENT.id) {
        return errorPage(res, MICROSOFT, 'unauthorized_client', "AADSTS700016: Application with identifier was not found in the directory.");
      }
      if (!store.registered.has(params.get('redirect_uri') ?? '')) {
        return errorPage(res, MICROSOFT, 'invalid_request', 'AADSTS50011: The redirect URI specified in the request does not match the redirect URIs configured for the application.');
      }
      const scope = params.get('scope') ?? '';
      if (!scope.includes('https://ads.microsoft.com/msads.manage')) return errorPage(res, MICROSOFT, 'invalid_scope', 'AADSTS70011: The provided value for the input parameter scope is not valid.');
      return consent(
        res,
        store,
        MICROSOFT,
        { client_id: params.get('client_id')!, redirect_uri: params.get('redirect_uri')!, scope, state: params.get('state') ?? '', offline: String(scope.split(' ').includes('offline_access')) },
        ['Manage your Microsoft Advertising accounts', ...(scope.includes('offline_access') ? ['Maintain access to data you have given it access to'] : [])],
      );
    }
    if (req.method === 'POST' && path === '/microsoft/consent') return decide(req, res, store, MICROSOFT);
    if (req.method === 'POST' && path === '/microsoft/common/oauth2/v2.0/token') {
      const form = new URLSearchParams(await readBody(req));
      if (form.get('client_id') !== MICROSOFT_CLIENT.id || form.get('client_secret') !== MICROSOFT_CLIENT.secret) {
        return aadError(res, 401, 'invalid_client', 7000215, 'Invalid client secret provided.');
      }
      if (!form.get('scope')) return aadError(res, 400, 'invalid_request', 900144, "The request body must contain the following parameter: 'scope'.");
      let grant: Grant;
      if (form.get('grant_type') === 'authorization_code') {
        const redeemed = store.redeem(form.get('code') ?? '', 'microsoft', form.get('client_id')!, form.get('redirect_uri') ?? '');
        if (redeemed === 'used') return aadError(res, 400, 'invalid_grant', 54005, 'OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.');
        if (redeemed === 'mismatch') return aadError(res, 400, 'invalid_grant', 50148, 'The redirect_uri does not match the one used in the authorization request.');
        if (!redeemed) return aadError(res, 400, 'invalid_grant', 70000, 'The provided authorization code or refresh token has expired or is invalid.');
        grant = redeemed;
      } else if (form.get('grant_type') === 'refresh_token') {
        const old = form.get('refresh_token') ?? '';
        const found = store.refreshTokens.get(old);
        if (!found || found.provider !== 'microsoft') {
          return aadError(res, 400, 'invalid_grant', 70000, 'The provided authorization code or refresh token has expired or is invalid.');
        }
        store.refreshTokens.delete(old); // refresh tokens rotate
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
    if (req.method !== 'POST') return adApiFault(res, 404, 0, 'NotFound', 'Not found');
    if (req.headers.developertoken !== MICROSOFT_DEVELOPER_TOKEN) return adApiFault(res, 401, 105, 'InvalidCredentials', 'Authentication failed. Either supplied credentials are invalid or the account is inactive.');
    if (!store.bearerToken(req, url, 'microsoft')) return adApiFault(res, 401, 109, 'AuthenticationTokenExpired', 'Authentication token expired. Please renew it or obtain a new token.');
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

  return { owns: (path) => path.startsWith('/microsoft/'), handle: (req, res, url) => microsoft(req, res, url, url.pathname) };
}

/** The environment that points the app's Microsoft clients at the sandbox at `url`. */
export function microsoftEnv(url: string): Record<string, string> {
  return {
    MICROSOFT_OAUTH_CLIENT_ID: MICROSOFT_CLIENT.id,
    MICROSOFT_OAUTH_CLIENT_SECRET: MICROSOFT_CLIENT.secret,
    MICROSOFT_ADS_DEVELOPER_TOKEN: MICROSOFT_DEVELOPER_TOKEN,
    MICROSOFT_LOGIN_URL: `${url}/microsoft/common/oauth2/v2.0`,
    MICROSOFT_CUSTOMER_MANAGEMENT_URL: `${url}/microsoft/clientcenter/CustomerManagement/v13`,
    MICROSOFT_CAMPAIGN_MANAGEMENT_URL: `${url}/microsoft/campaign/CampaignManagement/v13`,
  };
}
