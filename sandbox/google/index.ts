/**
 * The sandbox's Google: OAuth 2.0 (consent, code and refresh grants, revoke, userinfo), the Google
 * Ads API (the pinned version; accessible customers, a manager with two clients, conversion actions; a client is
 * refused without its manager as login-customer-id; ad performance through googleAds:searchStream,
 * its GAQL checked as Google checks it and its figures from sandbox/adData.ts), the Data Manager
 * API's events:ingest (conversions to those customers' conversion actions, sandbox/google_ads/delivery.ts)
 * and the service-account JWT grant (RFC 7523) that BigQuery logins use (sandbox/bigquery/).
 */
import { API_VERSIONS } from '@/lib/server/connectors/versions';
import { createVerify, generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdDataLevel, AdFacts } from '@/sandbox/adData';
import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import { ingestEvents, retrieveRequestStatus, type DataManagerWorld } from '@/sandbox/google_ads/delivery';
import { routeTable, type RouteHandler } from '@/sandbox/routes';
import { json, readBody, writable } from '@/sandbox/server';
import { token, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

/** The versions the sandbox serves: the ones the app pins (lib/server/connectors/versions.ts). */
const ADS_VERSION = API_VERSIONS.googleAds.version;
const DATA_MANAGER_VERSION = API_VERSIONS.dataManager.version;

export const GOOGLE_CLIENT = { id: 'sandbox-google-client.apps.googleusercontent.com', secret: 'sandbox-google-secret' };

/** The sandbox's world: one marketer with a manager account, its clients, and their conversion targets. */
const GOOGLE_USER = { sub: '109876543210', email: 'sandbox.marketer@example.com', name: 'Sandbox Marketer' };
const GOOGLE_CUSTOMERS: Record<string, { name: string; manager: boolean; currency: string; timeZone: string; clients?: string[] }> = {
  '1112223334': {
    name: 'Sandbox Agency (manager)',
    manager: true,
    currency: 'USD',
    timeZone: 'America/New_York',
    clients: ['1234567890', '2345678901'],
  },
  '5556667778': { name: 'Sandbox Direct Store', manager: false, currency: 'EUR', timeZone: 'Europe/Berlin' },
  '1234567890': { name: 'Acme Shoes', manager: false, currency: 'USD', timeZone: 'America/New_York' },
  '2345678901': { name: 'Acme Outlet', manager: false, currency: 'USD', timeZone: 'America/Los_Angeles' },
};
const GOOGLE_DIRECT = ['1112223334', '5556667778'];
const CONVERSION_ACTIONS = [
  { id: '9001', name: 'Purchase', status: 'ENABLED' },
  { id: '9002', name: 'Lead form submitted', status: 'ENABLED' },
  { id: '9003', name: 'Old checkout (removed)', status: 'REMOVED' },
];
export const GOOGLE: Brand = { provider: 'google', name: 'Google', color: '#1a73e8', account: GOOGLE_USER.email };

/** The resources googleAds:searchStream serves in the sandbox, and the ad-data level each reads. */
const STREAM_RESOURCES = { campaign: 'campaign', ad_group: 'ad_group', ad_group_ad: 'ad' } as const satisfies Record<string, AdDataLevel>;
type StreamResource = keyof typeof STREAM_RESOURCES;
const ANY_RESOURCE: readonly StreamResource[] = ['campaign', 'ad_group', 'ad_group_ad'];

/** One reported object on one day (or over the whole filter, when segments.date is not selected), of one customer. */
interface StreamRow {
  customerId: string;
  customer: (typeof GOOGLE_CUSTOMERS)[string];
  facts: AdFacts;
}

// Proto3 JSON as REST sends it: int64 as a string, double as a number, and a zero left out.
const int64 = (value: number) => (value ? String(value) : undefined);
const double = (value: number) => (value ? value : undefined);

/**
 * The GAQL fields the sandbox knows: the FROM resources each may be selected with, where it goes in a
 * REST row (camelCase) and its value. Any other field is unrecognized, as a misspelt one is at Google.
 */
const GAQL_FIELDS: Record<string, { resources: readonly StreamResource[]; path: string[]; value: (row: StreamRow) => unknown }> = {
  'customer.id': { resources: ANY_RESOURCE, path: ['customer', 'id'], value: (row) => row.customerId },
  'customer.descriptive_name': { resources: ANY_RESOURCE, path: ['customer', 'descriptiveName'], value: (row) => row.customer.name },
  'customer.currency_code': { resources: ANY_RESOURCE, path: ['customer', 'currencyCode'], value: (row) => row.customer.currency },
  'customer.time_zone': { resources: ANY_RESOURCE, path: ['customer', 'timeZone'], value: (row) => row.customer.timeZone },
  'campaign.id': { resources: ANY_RESOURCE, path: ['campaign', 'id'], value: (row) => row.facts.campaignId },
  'campaign.name': { resources: ANY_RESOURCE, path: ['campaign', 'name'], value: (row) => row.facts.campaignName },
  'ad_group.id': { resources: ['ad_group', 'ad_group_ad'], path: ['adGroup', 'id'], value: (row) => row.facts.adGroupId },
  'ad_group.name': { resources: ['ad_group', 'ad_group_ad'], path: ['adGroup', 'name'], value: (row) => row.facts.adGroupName },
  'ad_group_ad.ad.id': { resources: ['ad_group_ad'], path: ['adGroupAd', 'ad', 'id'], value: (row) => row.facts.adId },
  'ad_group_ad.ad.name': { resources: ['ad_group_ad'], path: ['adGroupAd', 'ad', 'name'], value: (row) => row.facts.adName },
  'segments.date': { resources: ANY_RESOURCE, path: ['segments', 'date'], value: (row) => row.facts.date },
  'metrics.impressions': { resources: ANY_RESOURCE, path: ['metrics', 'impressions'], value: (row) => int64(row.facts.impressions) },
  'metrics.clicks': { resources: ANY_RESOURCE, path: ['metrics', 'clicks'], value: (row) => int64(row.facts.clicks) },
  'metrics.cost_micros': { resources: ANY_RESOURCE, path: ['metrics', 'costMicros'], value: (row) => int64(row.facts.spendMicros) },
  'metrics.conversions': { resources: ANY_RESOURCE, path: ['metrics', 'conversions'], value: (row) => double(row.facts.conversions) },
  'metrics.conversions_value': {
    resources: ANY_RESOURCE,
    path: ['metrics', 'conversionsValue'],
    value: (row) => double(row.facts.valueMicros / 1_000_000),
  },
};

/** The fields of `SELECT … FROM customer` the sandbox serves (the customer's settings, no metrics). */
const CUSTOMER_FIELDS: Record<string, (id: string, customer: (typeof GOOGLE_CUSTOMERS)[string]) => unknown> = {
  'customer.id': (id) => id,
  'customer.descriptive_name': (_id, customer) => customer.name,
  'customer.currency_code': (_id, customer) => customer.currency,
  'customer.time_zone': (_id, customer) => customer.timeZone,
  'customer.manager': (_id, customer) => customer.manager,
};

/** How many rows REST searchStream puts in one batch of its JSON array. */
const STREAM_BATCH_ROWS = 10_000;

interface GaqlQuery {
  resource: StreamResource;
  fields: string[];
  range: { from: string; to: string } | null;
}

interface QueryRefusal {
  queryError: string;
  message: string;
}

const isCalendarDay = (value: string) =>
  !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;

/** A date filter: `segments.date BETWEEN 'YYYY-MM-DD' AND 'YYYY-MM-DD'`, the only condition the sandbox filters on. */
function dateFilter(where: string): GaqlQuery['range'] | QueryRefusal {
  const between = /^segments\.date BETWEEN (\S+) AND (\S+)$/i.exec(where);
  if (!between) {
    if (/^segments\.date BETWEEN /i.test(where))
      return { queryError: 'EXPECTED_AND', message: 'Expected AND between values with BETWEEN operator.' };
    return {
      queryError: 'QUERY_ERROR',
      message: `The sandbox filters only on segments.date BETWEEN 'YYYY-MM-DD' AND 'YYYY-MM-DD', not: ${where.slice(0, 80)}`,
    };
  }
  const [from, to] = [between[1]!, between[2]!].map((value) => /^'(.*)'$/.exec(value)?.[1] ?? null);
  if (from == null || to == null) return { queryError: 'INVALID_STRING_VALUE', message: 'Values of segments.date must be quoted strings.' };
  for (const day of [from, to]) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
      return { queryError: 'INVALID_DATE_FORMAT', message: `Invalid date format: '${day}'. Expected 'YYYY-MM-DD'.` };
    if (!isCalendarDay(day))
      return {
        queryError: 'INVALID_VALUE_WITH_BETWEEN_OPERATOR',
        message: `'${day}' passed to the BETWEEN operator does not parse as a date.`,
      };
  }
  if (from > to) return { queryError: 'DATE_RANGE_TOO_NARROW', message: `The start date '${from}' is after the end date '${to}'.` };
  return { from, to };
}

/** The one conversions-by-date query the sandbox answers (sandbox/reporting.ts): FROM customer, per action and day. */
export const CONVERSIONS_BY_DATE_FIELDS = ['segments.conversion_action', 'segments.date', 'metrics.all_conversions_by_conversion_date'];

/** Parses `SELECT <those fields> FROM customer WHERE segments.date BETWEEN …`; a refusal as Google words it. */
function conversionsByDateQuery(text: string): { from: string; to: string } | QueryRefusal {
  const query = text.replace(/\s+/g, ' ').trim();
  const parts = /^SELECT (.+?) FROM (\S+) WHERE (.+)$/i.exec(query);
  if (!parts) return { queryError: 'EXPECTED_FILTERS_ON_DATE_RANGE', message: 'A finite date range must be specified.' };
  const fields = parts[1]!.split(',').map((field) => field.trim());
  const unknown = fields.filter((field) => !CONVERSIONS_BY_DATE_FIELDS.includes(field));
  if (unknown.length) return { queryError: 'UNRECOGNIZED_FIELD', message: `Unrecognized fields in the query: '${unknown.join("', '")}'.` };
  if (parts[2] !== 'customer')
    return {
      queryError: 'BAD_RESOURCE_TYPE_IN_FROM_CLAUSE',
      message: `The sandbox reads conversions by date FROM customer, not '${parts[2]}'.`,
    };
  const range = dateFilter(parts[3]!);
  return range ?? { queryError: 'EXPECTED_FILTERS_ON_DATE_RANGE', message: 'A finite date range must be specified.' };
}

/** The GAQL of a searchStream, checked as Google checks it for the fields and resources the sandbox knows. */
function parseGaql(text: string): GaqlQuery | QueryRefusal {
  const query = text.replace(/\s+/g, ' ').trim();
  if (!/^SELECT /i.test(query)) return { queryError: 'EXPECTED_SELECT', message: 'SELECT is missing at the beginning of query.' };
  const parts = /^SELECT (.+?) FROM (\S+)(?: WHERE (.+))?$/i.exec(query);
  if (!parts) return { queryError: 'EXPECTED_FROM', message: 'Missing FROM clause.' };
  const fields = parts[1]!.split(',').map((field) => field.trim());
  const resource = parts[2]!;
  const unknown = fields.filter((field) => !GAQL_FIELDS[field]);
  if (unknown.length)
    return {
      queryError: 'UNRECOGNIZED_FIELD',
      message: `Unrecognized fields in the query: ${unknown.map((field) => `'${field}'`).join(', ')}.`,
    };
  if (!(resource in STREAM_RESOURCES)) {
    return {
      queryError: 'BAD_RESOURCE_TYPE_IN_FROM_CLAUSE',
      message: `The sandbox's searchStream serves FROM campaign, ad_group or ad_group_ad, not '${resource}'.`,
    };
  }
  const from = resource as StreamResource;
  const incompatible = fields.find((field) => !GAQL_FIELDS[field]!.resources.includes(from));
  if (incompatible) {
    const other = incompatible.split('.')[0];
    return {
      queryError: 'PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE',
      message: `Cannot select fields from the following resource: '${other}', since the resource is incompatible with the resource in FROM clause.`,
    };
  }
  let range: GaqlQuery['range'] = null;
  if (parts[3]) {
    const filter = dateFilter(parts[3]);
    if (filter && 'queryError' in filter) return filter;
    range = filter;
  }
  if (fields.includes('segments.date') && !range) {
    return {
      queryError: 'EXPECTED_FILTERS_ON_DATE_RANGE',
      message: 'A finite date range must be specified in the WHERE clause when segments.date is selected.',
    };
  }
  return { resource: from, fields, range };
}

const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** A GoogleAdsRow in REST JSON: the selected fields, each resource with its resource name. */
function restRow(row: StreamRow, query: GaqlQuery): Json {
  const { customerId, facts } = row;
  const resourceNames: Record<string, string> = {
    customer: `customers/${customerId}`,
    campaign: `customers/${customerId}/campaigns/${facts.campaignId}`,
    adGroup: `customers/${customerId}/adGroups/${facts.adGroupId}`,
    adGroupAd: `customers/${customerId}/adGroupAds/${facts.adGroupId}~${facts.adId}`,
  };
  const result: Json = { [camelCase(query.resource)]: { resourceName: resourceNames[camelCase(query.resource)] } };
  for (const field of query.fields) {
    const { path, value } = GAQL_FIELDS[field]!;
    let target = result;
    path.slice(0, -1).forEach((key, depth) => {
      const name = depth === 0 ? resourceNames[key] : key === 'ad' ? `customers/${customerId}/ads/${facts.adId}` : undefined;
      target = (target[key] ??= name ? { resourceName: name } : {}) as Json;
    });
    const fieldValue = value(row);
    if (fieldValue !== undefined && fieldValue !== null) target[path[path.length - 1]!] = fieldValue;
  }
  return result;
}

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

  const googleUnauthenticated = (res: ServerResponse) =>
    json(res, 401, {
      error: {
        code: 401,
        message:
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
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
            '@type': `type.googleapis.com/google.ads.googleads.${ADS_VERSION}.errors.GoogleAdsFailure`,
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
    canOperate: (operatingAccountId, loginAccountId) =>
      Boolean(GOOGLE_CUSTOMERS[operatingAccountId]) && adsAccessAllowed(operatingAccountId, loginAccountId),
    hasEnabledConversionAction: (accountId, conversionActionId) =>
      !GOOGLE_CUSTOMERS[accountId]?.manager &&
      CONVERSION_ACTIONS.some((action) => action.id === conversionActionId && action.status === 'ENABLED'),
  };

  /** Answers the refusal and returns false unless the caller may act on the customer with the login-customer-id it sent. */
  function adsAccess(req: IncomingMessage, res: ServerResponse, customerId: string): boolean {
    const login = req.headers['login-customer-id'] as string | undefined;
    if (login !== undefined && !/^\d{10}$/.test(login)) {
      adsFailure(
        res,
        400,
        'INVALID_ARGUMENT',
        { requestError: 'INVALID_LOGIN_CUSTOMER_ID' },
        'login-customer-id must be 10 digits without dashes.',
      );
      return false;
    }
    if (!GOOGLE_CUSTOMERS[customerId] || !adsAccessAllowed(customerId, login)) {
      adsFailure(
        res,
        403,
        'PERMISSION_DENIED',
        { authorizationError: 'USER_PERMISSION_DENIED' },
        "User doesn't have permission to access customer. Note: If you're accessing a client customer, the manager's customer id must be set in the 'login-customer-id' header.",
      );
      return false;
    }
    return true;
  }

  /** A switched-on failure of an account's reports, in Google's shape: 429 with its retry delay (when the failure ends), 5xx internal. */
  function adsOutage(res: ServerResponse, status: number, retrySeconds: number) {
    const retryDelay = `${retrySeconds}s`;
    const [statusText, message, errorCode]: [string, string, Json] =
      status === 429
        ? ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).', { quotaError: 'RESOURCE_EXHAUSTED' }]
        : status === 503
          ? ['UNAVAILABLE', 'The service is currently unavailable.', { internalError: 'TRANSIENT_ERROR' }]
          : status === 401
            ? ['UNAUTHENTICATED', 'Request had invalid authentication credentials.', { authenticationError: 'OAUTH_TOKEN_REVOKED' }]
            : status === 403
              ? ['PERMISSION_DENIED', 'The caller does not have permission', { authorizationError: 'USER_PERMISSION_DENIED' }]
              : ['INTERNAL', 'Internal error encountered.', { internalError: 'INTERNAL_ERROR' }];
    const quota =
      status === 429
        ? { details: { quotaErrorDetails: { rateScope: 'ACCOUNT', rateName: 'Number of operations for basic access', retryDelay } } }
        : {};
    return json(res, status, {
      error: {
        code: status,
        message,
        status: statusText,
        details: [
          {
            '@type': `type.googleapis.com/google.ads.googleads.${ADS_VERSION}.errors.GoogleAdsFailure`,
            errors: [
              {
                errorCode,
                message: status === 429 ? `Too many requests. Retry in ${retryDelay.replace('s', '')} seconds.` : message,
                ...quota,
              },
            ],
            requestId: token(''),
          },
          ...(status === 429 ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }] : []),
        ],
      },
    });
  }

  /** Waits until a streamed answer may take more, or the caller went away (then false). */
  async function drained(res: ServerResponse, wrote: boolean): Promise<boolean> {
    if (!wrote && !res.destroyed) await writable(res);
    return !res.destroyed;
  }

  /**
   * googleAds:searchStream over REST: one JSON array of batches ({results, fieldMask, requestId}, up
   * to 10,000 rows each), written as the rows are made, so a long window is never held whole.
   */
  async function googleAdsSearchStream(req: IncomingMessage, res: ServerResponse, customerId: string) {
    const body = JSON.parse((await readBody(req)) || '{}') as { query?: string };
    if (!adsAccess(req, res, customerId)) return;
    const failure = store.adData.failureOf(customerId);
    if (failure) return adsOutage(res, failure, store.adData.failureEndsIn(customerId) ?? 30);
    if ((body.query ?? '').includes('metrics.all_conversions_by_conversion_date'))
      return conversionsByDate(res, customerId, body.query ?? '');
    if (/\bFROM customer\s*$/i.test(body.query ?? '')) return customerSettings(res, customerId, body.query ?? '');
    const query = parseGaql(body.query ?? '');
    if ('queryError' in query) return adsFailure(res, 400, 'INVALID_ARGUMENT', { queryError: query.queryError }, query.message);
    const customer = GOOGLE_CUSTOMERS[customerId]!;
    const metrics = query.fields.some((field) => field.startsWith('metrics.'));
    if (customer.manager && metrics) {
      return adsFailure(
        res,
        400,
        'INVALID_ARGUMENT',
        { queryError: 'REQUESTED_METRICS_FOR_MANAGER' },
        'Metrics cannot be requested for a manager account. To retrieve metrics, issue separate requests against each client account under the manager account.',
      );
    }
    const fieldMask = query.fields.map((field) => field.split('.').map(camelCase).join('.')).join(',');
    const requestId = token('');
    res.writeHead(200, { 'Content-Type': 'application/json; charset=UTF-8' });
    let open = await drained(res, res.write('['));
    let batches = 0;
    let results: Json[] = [];
    const flush = async () => {
      const batch = { ...(results.length ? { results } : {}), fieldMask, requestId };
      open = await drained(res, res.write(`${batches ? ',\r\n' : ''}${JSON.stringify(batch)}`));
      batches += 1;
      results = [];
    };
    for (const row of customer.manager ? [] : streamRows(customerId, query)) {
      if (!open) return;
      results.push(restRow(row, query));
      if (results.length === STREAM_BATCH_ROWS) await flush();
    }
    if (results.length || !batches) await flush();
    res.end(']');
  }

  /**
   * What the customer's conversion actions counted per conversion date (sandbox/reporting.ts: uploads
   * that matched no click or known customer are not attributed); one batch, rows with a zero left out.
   */
  function conversionsByDate(res: ServerResponse, customerId: string, text: string) {
    const range = conversionsByDateQuery(text);
    if ('queryError' in range) return adsFailure(res, 400, 'INVALID_ARGUMENT', { queryError: range.queryError }, range.message);
    if (GOOGLE_CUSTOMERS[customerId]!.manager)
      return adsFailure(
        res,
        400,
        'INVALID_ARGUMENT',
        { queryError: 'REQUESTED_METRICS_FOR_MANAGER' },
        'Metrics cannot be requested for a manager account.',
      );
    const results: Json[] = [];
    // segments.date is the customer's day, in its time zone.
    for (const [action, days] of store.reporting.googleActions(customerId, GOOGLE_CUSTOMERS[customerId]!.timeZone)) {
      for (const [date, count] of days) {
        if (date < range.from || date > range.to) continue;
        results.push({
          segments: { conversionAction: `customers/${customerId}/conversionActions/${action}`, date },
          metrics: { allConversionsByConversionDate: count },
        });
      }
    }
    const fieldMask = CONVERSIONS_BY_DATE_FIELDS.map((field) => field.split('.').map(camelCase).join('.')).join(',');
    return json(res, 200, [{ ...(results.length ? { results } : {}), fieldMask, requestId: token('') }]);
  }

  /**
   * `SELECT customer.… FROM customer`: the customer's own settings, one row (a manager's too: no metrics are
   * asked). Its `time_zone` is the zone of the customer's `segments.date` (the conversions by date above).
   */
  function customerSettings(res: ServerResponse, customerId: string, text: string) {
    const fields = (/^\s*SELECT (.+?) FROM customer\s*$/i.exec(text)?.[1] ?? '').split(',').map((field) => field.trim());
    const unknown = fields.filter((field) => !CUSTOMER_FIELDS[field]);
    if (unknown.length)
      return adsFailure(
        res,
        400,
        'INVALID_ARGUMENT',
        { queryError: 'UNRECOGNIZED_FIELD' },
        `Unrecognized fields in the query: ${unknown.map((field) => `'${field}'`).join(', ')}.`,
      );
    const customer = GOOGLE_CUSTOMERS[customerId]!;
    const row: Json = { resourceName: `customers/${customerId}` };
    for (const field of fields) row[camelCase(field.slice('customer.'.length))] = CUSTOMER_FIELDS[field]!(customerId, customer);
    const fieldMask = fields.map((field) => field.split('.').map(camelCase).join('.')).join(',');
    return json(res, 200, [{ results: [{ customer: row }], fieldMask, requestId: token('') }]);
  }

  /** The rows of a query: per day when segments.date is selected, else summed over the filter (all history without one). */
  function* streamRows(customerId: string, query: GaqlQuery): Generator<StreamRow> {
    const customer = GOOGLE_CUSTOMERS[customerId]!;
    const account = { id: customerId, name: customer.name, currency: customer.currency, timeZone: customer.timeZone };
    const level = STREAM_RESOURCES[query.resource];
    const facts = store.adData.rowsOf('google', account, level, query.range?.from ?? '0001-01-01', query.range?.to ?? '9999-12-31');
    if (query.fields.includes('segments.date')) {
      for (const day of facts) yield { customerId, customer, facts: day };
      return;
    }
    const totals = new Map<string, AdFacts>();
    for (const day of facts) {
      const key = level === 'campaign' ? day.campaignId : level === 'ad_group' ? day.adGroupId! : day.adId!;
      const total = totals.get(key);
      if (!total) {
        totals.set(key, { ...day });
        continue;
      }
      total.impressions += day.impressions;
      total.clicks += day.clicks;
      total.spendMicros += day.spendMicros;
      total.conversions += day.conversions;
      total.valueMicros += day.valueMicros;
    }
    for (const total of totals.values()) yield { customerId, customer, facts: total };
  }

  async function googleAdsSearch(req: IncomingMessage, res: ServerResponse, customerId: string) {
    const body = JSON.parse((await readBody(req)) || '{}') as { query?: string };
    if (!adsAccess(req, res, customerId)) return;
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
      return json(res, 200, {
        results: rows,
        fieldMask:
          'customerClient.id,customerClient.descriptiveName,customerClient.currencyCode,customerClient.manager,customerClient.level',
      });
    }
    if (from === 'conversion_action') {
      if (GOOGLE_CUSTOMERS[customerId]!.manager) return json(res, 200, { results: [], fieldMask: 'conversionAction.id' });
      const enabledOnly = /status = 'ENABLED'/.test(query);
      const rows = CONVERSION_ACTIONS.filter((action) => !enabledOnly || action.status === 'ENABLED').map((action) => ({
        conversionAction: { resourceName: `customers/${customerId}/conversionActions/${action.id}`, ...action },
      }));
      return json(res, 200, { results: rows, fieldMask: 'conversionAction.id,conversionAction.name,conversionAction.status' });
    }
    return adsFailure(
      res,
      400,
      'INVALID_ARGUMENT',
      { queryError: 'INVALID_RESOURCE_NAME' },
      `The sandbox does not serve this query: ${query.slice(0, 80)}`,
    );
  }

  /** A Google Ads API call: it needs a live token with the adwords scope (UNAUTHENTICATED otherwise). */
  const adsCall =
    (handler: (req: IncomingMessage, res: ServerResponse, customerId: string) => unknown): RouteHandler =>
    (req, res, url, params) => {
      const caller = store.bearerToken(req, url, 'google');
      if (!caller || !caller.scope.includes('/auth/adwords')) return googleUnauthenticated(res);
      return handler(req, res, params.customer!);
    };

  const userinfo: RouteHandler = (req, res, url) =>
    store.bearerToken(req, url, 'google') ? json(res, 200, { ...GOOGLE_USER, email_verified: true }) : googleUnauthenticated(res);

  const ADS = `/googleads/${ADS_VERSION}`;
  const DATA_MANAGER = `/datamanager/${DATA_MANAGER_VERSION}`;
  const handle = routeTable(
    [
      ['GET /google/o/oauth2/v2/auth', (_req, res, url) => googleAuthorize(res, url)],
      ['POST /google/consent', (req, res) => decide(req, res, store, GOOGLE)],
      ['POST /google/token', googleToken],
      ['POST /google/revoke', googleRevoke],
      [`POST ${DATA_MANAGER}/events:ingest`, (req, res, url) => ingestEvents(req, res, url, store, dataManagerWorld)],
      [`GET ${DATA_MANAGER}/requestStatus:retrieve`, (req, res, url) => retrieveRequestStatus(req, res, url, store)],
      ['* /google/userinfo', userinfo],
      [
        `GET ${ADS}/customers:listAccessibleCustomers`,
        adsCall((_req, res) => json(res, 200, { resourceNames: GOOGLE_DIRECT.map((id) => `customers/${id}`) })),
      ],
      [`POST ${ADS}/customers/:customer(\\d+)/googleAds:search`, adsCall(googleAdsSearch)],
      [`POST ${ADS}/customers/:customer(\\d+)/googleAds:searchStream`, adsCall(googleAdsSearchStream)],
    ],
    (_req, res, url) => json(res, 404, { error: { code: 404, message: `Not found: ${url.pathname}`, status: 'NOT_FOUND' } }),
  );

  return {
    owns: (path) => path.startsWith('/google/') || path.startsWith('/googleads/') || path.startsWith('/datamanager/'),
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
    GOOGLE_ADS_API_URL: `${url}/googleads`,
    GOOGLE_DATA_MANAGER_API_URL: `${url}/datamanager/${DATA_MANAGER_VERSION}`,
    BIGQUERY_API_URL: `${url}/bigquery`,
  };
}
