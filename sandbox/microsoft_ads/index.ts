/**
 * The sandbox's Microsoft: the identity platform v2.0 (consent, code and rotating refresh grants, AADSTS
 * errors) and Microsoft Advertising REST v13 (the user, accounts, conversion goals, offline conversions,
 * reports; developer token and CustomerId headers checked).
 */
import { API_VERSIONS } from '@/lib/server/connectors/versions';

import type { IncomingMessage, ServerResponse } from 'node:http';

import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import { answerFailure } from '@/sandbox/conversions';
import { routeTable, type RouteHandler } from '@/sandbox/routes';
import { json, readBody } from '@/sandbox/server';
import { token, type Grant, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';
import type { AdApiFault } from '@/sandbox/microsoft_ads/faults';
import { createReporting } from '@/sandbox/microsoft_ads/report';
import { MICROSOFT_ACCOUNTS, MICROSOFT_GOALS } from '@/sandbox/microsoft_ads/accounts';

/** The REST version the sandbox serves: the one the app pins (lib/server/connectors/versions.ts). */
const REST_VERSION = API_VERSIONS.microsoftAds.version;

export const MICROSOFT_CLIENT = { id: '00000000-5a4d-4b6f-8e1a-5a4db0c0ffee', secret: 'sandbox-microsoft-secret' };
export const MICROSOFT_DEVELOPER_TOKEN = 'SANDBOXDEVTOKEN';

const MICROSOFT_USER = { Id: 7001, UserName: 'sandbox.marketer', ContactInfo: { Email: 'sandbox.marketer@outlook.example' } };
/** Microsoft takes at most this many offline conversions in one ApplyOfflineConversions request. */
const MAX_OFFLINE_CONVERSIONS = 1000;
/** How far back an offline conversion may be (Microsoft: 90 days). */
const OFFLINE_LOOKBACK_MS = 90 * 24 * 3600 * 1000;

/**
 * Why ApplyOfflineConversions refuses a request or one of its items. The symbolic names are Microsoft's
 * (the campaign service's OfflineConversion statuses; OfflineConversionNameInvalid and
 * OfflineConversionMicrosoftClickIdInvalid as the API returns them). Of the numbers only 5614 was seen
 * in the wild; the others are plausible placeholders in the same range: the connector reads ErrorCode
 * and Message, never the number, for rows.
 */
const OFFLINE_ERRORS = {
  OfflineConversionsNullOrEmpty: [5600, 'The offline conversions array is null or empty.'],
  OfflineConversionBatchSizeExceedsLimit: [5601, `The number of offline conversions exceeds the limit of ${MAX_OFFLINE_CONVERSIONS}.`],
  OfflineConversionIsNull: [5602, 'The offline conversion is null.'],
  OfflineConversionMicrosoftClickIdNullOrEmpty: [5603, 'The Microsoft click ID is null or empty.'],
  OfflineConversionMicrosoftClickIdInvalid: [5604, 'The Microsoft click ID is invalid.'],
  OfflineConversionNameNullOrEmpty: [5605, 'The conversion name is null or empty.'],
  OfflineConversionNameInvalid: [5606, 'The conversion name does not match an active offline conversion goal.'],
  OfflineConversionTimeNullOrEmpty: [5607, 'The conversion time is null or empty.'],
  OfflineConversionTimeInvalid: [5608, 'The conversion time is invalid. It must be a UTC date and time.'],
  OfflineConversionTimeOutOfWindow: [5609, 'The conversion time is outside the 90-day lookback window.'],
  OfflineConversionValueInvalid: [5610, 'The conversion value is invalid.'],
  OfflineConversionCurrencyCodeInvalid: [5611, 'The conversion currency code is invalid.'],
  FutureConversionTimeCannotBeSet: [5614, 'The conversion time cannot be in the future.'],
  ConversionEmailAddressIsNotHashed: [5620, 'The email address is not hashed with SHA-256.'],
  ConversionPhoneNumberIsNotHashed: [5621, 'The phone number is not hashed with SHA-256.'],
} as const satisfies Record<string, readonly [number, string]>;
type OfflineError = keyof typeof OFFLINE_ERRORS;

/**
 * What Microsoft refuses in one offline conversion, or null when it applies. A click id is required
 * here (the sandbox matches by click alone); Microsoft checks it against its click log, the sandbox
 * against the usual msclkid shape: 32 hex characters. It cannot know the click's time, so "conversion
 * before the click" and the goal's own conversion window are not checked.
 */
function offlineConversionError(item: unknown, now: number): OfflineError | null {
  if (!item || typeof item !== 'object') return 'OfflineConversionIsNull';
  const row = item as Record<string, unknown>;
  const blank = (value: unknown) => value === undefined || value === null || value === '';
  if (blank(row.MicrosoftClickId)) return 'OfflineConversionMicrosoftClickIdNullOrEmpty';
  if (typeof row.MicrosoftClickId !== 'string' || !/^[0-9a-f]{32}$/i.test(row.MicrosoftClickId))
    return 'OfflineConversionMicrosoftClickIdInvalid';
  if (blank(row.ConversionName)) return 'OfflineConversionNameNullOrEmpty';
  if (!MICROSOFT_GOALS.some((goal) => goal.Name === row.ConversionName && goal.Type === 'OfflineConversion' && goal.Status === 'Active')) {
    return 'OfflineConversionNameInvalid';
  }
  if (blank(row.ConversionTime)) return 'OfflineConversionTimeNullOrEmpty';
  // xs:dateTime in UTC: a Z (or +00:00) suffix; local times are what usually lands conversions in the future.
  const time =
    typeof row.ConversionTime === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?(Z|\+00:00)$/.test(row.ConversionTime)
      ? Date.parse(row.ConversionTime)
      : NaN;
  if (Number.isNaN(time)) return 'OfflineConversionTimeInvalid';
  if (time > now) return 'FutureConversionTimeCannotBeSet';
  if (time < now - OFFLINE_LOOKBACK_MS) return 'OfflineConversionTimeOutOfWindow';
  if (
    !blank(row.ConversionValue) &&
    (typeof row.ConversionValue !== 'number' || !Number.isFinite(row.ConversionValue) || row.ConversionValue < 0)
  ) {
    return 'OfflineConversionValueInvalid';
  }
  if (
    !blank(row.ConversionCurrencyCode) &&
    (typeof row.ConversionCurrencyCode !== 'string' || !/^[A-Z]{3}$/.test(row.ConversionCurrencyCode))
  ) {
    return 'OfflineConversionCurrencyCodeInvalid';
  }
  const sha256 = (value: unknown) => typeof value === 'string' && /^[0-9a-f]{64}$/i.test(value);
  if (!blank(row.HashedEmailAddress) && !sha256(row.HashedEmailAddress)) return 'ConversionEmailAddressIsNotHashed';
  if (!blank(row.HashedPhoneNumber) && !sha256(row.HashedPhoneNumber)) return 'ConversionPhoneNumberIsNotHashed';
  return null;
}

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

  const adApiFault: AdApiFault = (res, status, code, errorCode, message) =>
    json(res, status, {
      TrackingId: token(''),
      Type: 'AdApiFaultDetail',
      Errors: [
        {
          Code: code,
          Details: null,
          ErrorCode: errorCode,
          FieldPath: null,
          ForwardCompatibilityMap: null,
          Message: message,
          Type: 'AdApiError',
        },
      ],
    });
  const { submitReport, pollReport, downloadReport } = createReporting(store, adApiFault);

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

  /** Answers the Ad API's fault to a call without a valid DeveloperToken header (105) or a live token (109); true when it did. */
  function refusedCredentials(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.headers.developertoken !== MICROSOFT_DEVELOPER_TOKEN) {
      adApiFault(
        res,
        401,
        105,
        'InvalidCredentials',
        'Authentication failed. Either supplied credentials are invalid or the account is inactive.',
      );
      return true;
    }
    if (!store.bearerToken(req, url, 'microsoft')) {
      adApiFault(res, 401, 109, 'AuthenticationTokenExpired', 'Authentication token expired. Please renew it or obtain a new token.');
      return true;
    }
    return false;
  }
  /** An Ad API operation (a POST): its credentials are checked first. */
  const adApi =
    (handler: RouteHandler): RouteHandler =>
    (req, res, url, params, context) =>
      refusedCredentials(req, res, url) ? undefined : handler(req, res, url, params, context);

  /** `User/Query`: the sandbox user, a manager of the one sandbox customer. */
  const userQuery: RouteHandler = (_req, res) =>
    json(res, 200, {
      User: { ...MICROSOFT_USER, Name: { FirstName: 'Sandbox', LastName: 'Marketer' } },
      CustomerRoles: [{ CustomerId: 9001, RoleId: 41, AccountIds: null }],
    });

  /** `Accounts/Search`: the user's accounts (PageInfo required). */
  async function searchAccounts(req: IncomingMessage, res: ServerResponse) {
    const body = JSON.parse((await readBody(req)) || '{}') as {
      Predicates?: Array<{ Field: string; Value: string }>;
      PageInfo?: unknown;
    };
    if (!body.PageInfo) return adApiFault(res, 400, 1001, 'NullParameter', 'PageInfo cannot be null.');
    const userPredicate = body.Predicates?.find((predicate) => predicate.Field === 'UserId');
    const accounts = !userPredicate || userPredicate.Value === String(MICROSOFT_USER.Id) ? MICROSOFT_ACCOUNTS : [];
    return json(res, 200, { Accounts: accounts });
  }

  /** `Account/Query`: one account by id. */
  async function queryAccount(req: IncomingMessage, res: ServerResponse) {
    const body = JSON.parse((await readBody(req)) || '{}') as { AccountId?: unknown };
    // Every sandbox account belongs to the one customer the sandbox user manages.
    const account = MICROSOFT_ACCOUNTS.find((candidate) => String(candidate.Id) === String(body.AccountId));
    if (!account) return adApiFault(res, 400, 1102, 'InvalidAccountId', 'The account ID is invalid.');
    return json(res, 200, { Account: account });
  }

  /** `ConversionGoals/QueryByIds`: the account's offline conversion goals (ConversionGoalTypes required). */
  async function conversionGoals(req: IncomingMessage, res: ServerResponse) {
    if (!accountOf(req, res)) return;
    const body = JSON.parse((await readBody(req)) || '{}') as { ConversionGoalTypes?: string };
    if (!body.ConversionGoalTypes) return adApiFault(res, 400, 1001, 'NullParameter', 'ConversionGoalTypes cannot be null.');
    return json(res, 200, { ConversionGoals: MICROSOFT_GOALS, PartialErrors: null });
  }

  /** The account named by the CustomerAccountId header, sent with its owner as CustomerId; else a fault is answered. */
  function accountOf(req: IncomingMessage, res: ServerResponse) {
    const account = MICROSOFT_ACCOUNTS.find((candidate) => String(candidate.Id) === req.headers.customeraccountid);
    if (!account) {
      adApiFault(res, 400, 1102, 'CampaignServiceInvalidAccountId', 'The account ID is invalid.');
      return null;
    }
    if (req.headers.customerid !== String(account.ParentCustomerId)) {
      adApiFault(
        res,
        400,
        1030,
        'CampaignServiceAccountIdHasToBeSpecified',
        'The CustomerId header must be the customer that owns the account.',
      );
      return null;
    }
    return account;
  }

  /** A refusal of the whole request (ApiFaultDetail with an operation error): nothing in it is applied. */
  const operationFault = (res: ServerResponse, error: OfflineError) =>
    json(res, 400, {
      TrackingId: token(''),
      Type: 'ApiFaultDetail',
      BatchErrors: [],
      OperationErrors: [
        { Code: OFFLINE_ERRORS[error][0], Details: null, ErrorCode: error, Message: OFFLINE_ERRORS[error][1], Type: 'OperationError' },
      ],
    });

  /**
   * ApplyOfflineConversions: 1 to 1,000 items, each applied or refused on its own (PartialErrors by
   * Index; an empty array when all applied). Microsoft counts a click id + conversion time (+ goal) once:
   * a repeat is accepted without error and recorded as one more receipt of the same conversion.
   */
  async function applyOfflineConversions(req: IncomingMessage, res: ServerResponse) {
    const failing = store.conversions.failing('microsoft');
    if (failing) return answerFailure(res, 'microsoft', failing);
    const account = accountOf(req, res);
    if (!account) return;
    let body: { OfflineConversions?: unknown };
    try {
      body = JSON.parse((await readBody(req)) || '{}') as { OfflineConversions?: unknown };
    } catch {
      return adApiFault(res, 400, 100, 'NullRequest', 'The request message is null or could not be read.');
    }
    const items = body.OfflineConversions;
    if (!Array.isArray(items) || items.length === 0) return operationFault(res, 'OfflineConversionsNullOrEmpty');
    if (items.length > MAX_OFFLINE_CONVERSIONS) return operationFault(res, 'OfflineConversionBatchSizeExceedsLimit');
    const now = Date.now();
    const partialErrors = [];
    for (const [index, item] of items.entries()) {
      const error = offlineConversionError(item, now);
      if (error) {
        partialErrors.push({
          Code: OFFLINE_ERRORS[error][0],
          Details: null,
          ErrorCode: error,
          FieldPath: null,
          ForwardCompatibilityMap: null,
          Index: index,
          Message: OFFLINE_ERRORS[error][1],
          Type: 'BatchError',
        });
        continue;
      }
      const row = item as { MicrosoftClickId: string; ConversionName: string; ConversionTime: string };
      // One instant, however it was written: Microsoft compares times, not strings.
      const time = new Date(row.ConversionTime).toISOString();
      store.conversions.record(
        'microsoft',
        `${account.Id}|${row.ConversionName}|${row.MicrosoftClickId}|${time}`,
        row.ConversionName,
        item as Record<string, unknown>,
      );
      // Enhanced conversions: the hashed email and phone are matched by Microsoft's forms (sandbox/matching.ts).
      const hashed = item as { HashedEmailAddress?: unknown; HashedPhoneNumber?: unknown };
      const identifiers = (['HashedEmailAddress', 'HashedPhoneNumber'] as const)
        .filter((key) => typeof hashed[key] === 'string' && hashed[key] !== '')
        .map((key) => ({ key, value: String(hashed[key]) }));
      store.matches.judge('microsoft', row.ConversionName, row.ConversionName, identifiers, ['MicrosoftClickId']);
    }
    store.conversions.countCall('microsoft');
    return json(res, 200, { PartialErrors: partialErrors });
  }

  const CUSTOMERS = `/microsoft/clientcenter/CustomerManagement/${REST_VERSION}`;
  const REPORTING = `/microsoft/reporting/Reporting/${REST_VERSION}`;
  const CAMPAIGNS = `/microsoft/campaign/CampaignManagement/${REST_VERSION}`;
  const handle = routeTable(
    [
      ['GET /microsoft/common/oauth2/v2.0/authorize', authorize],
      ['POST /microsoft/consent', (req, res) => decide(req, res, store, MICROSOFT)],
      ['POST /microsoft/common/oauth2/v2.0/token', tokenGrant],
      ['GET /microsoft/reportdownloads/:key([A-Za-z0-9_-]+).zip', (_req, res, _url, params) => downloadReport(res, params.key!)],
      [`POST ${CUSTOMERS}/User/Query`, adApi(userQuery)],
      [`POST ${CUSTOMERS}/Accounts/Search`, adApi(searchAccounts)],
      [`POST ${CUSTOMERS}/Account/Query`, adApi(queryAccount)],
      [`POST ${REPORTING}/GenerateReport/Submit`, adApi(submitReport)],
      [`POST ${REPORTING}/GenerateReport/Poll`, adApi(pollReport)],
      [`POST ${CAMPAIGNS}/ConversionGoals/QueryByIds`, adApi(conversionGoals)],
      [`POST ${CAMPAIGNS}/OfflineConversions/Apply`, adApi(applyOfflineConversions)],
    ],
    // Any other read is not found; any other write is checked as an Ad API call first, then not found by its path.
    (req, res, url) => {
      if (req.method !== 'POST') return adApiFault(res, 404, 0, 'NotFound', 'Not found');
      if (refusedCredentials(req, res, url)) return;
      return adApiFault(res, 404, 0, 'NotFound', `Not found: ${url.pathname}`);
    },
  );

  return { owns: (path) => path.startsWith('/microsoft/'), handle };
}

/** The environment that points the app's Microsoft clients at the sandbox at `url`. */
export function microsoftEnv(url: string): Record<string, string> {
  return {
    MICROSOFT_OAUTH_CLIENT_ID: MICROSOFT_CLIENT.id,
    MICROSOFT_OAUTH_CLIENT_SECRET: MICROSOFT_CLIENT.secret,
    MICROSOFT_ADS_DEVELOPER_TOKEN: MICROSOFT_DEVELOPER_TOKEN,
    MICROSOFT_LOGIN_URL: `${url}/microsoft/common/oauth2/v2.0`,
    MICROSOFT_CUSTOMER_MANAGEMENT_URL: `${url}/microsoft/clientcenter/CustomerManagement/${REST_VERSION}`,
    MICROSOFT_CAMPAIGN_MANAGEMENT_URL: `${url}/microsoft/campaign/CampaignManagement/${REST_VERSION}`,
    MICROSOFT_ADS_REPORTING_URL: `${url}/microsoft/reporting/Reporting/${REST_VERSION}`,
  };
}
