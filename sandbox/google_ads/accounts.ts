/**
 * The sandbox's Google Ads API world and its accounts: one marketer with a manager account, its clients,
 * their conversion actions; accessible customers and `googleAds:search` over customer_client and
 * conversion_action. A client is refused without its manager as login-customer-id, and every call needs
 * a live token with the adwords scope.
 */
import { GOOGLE_ADS_VERSION } from '@/lib/server/connectors/google_ads/version';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DataManagerWorld } from '@/sandbox/google_ads/dataManager';
import { googleUnauthenticated } from '@/sandbox/google';
import type { RouteHandler } from '@/sandbox/routes';
import { json, readBody } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

/** The version the sandbox serves: the one the app pins (its folder's version.ts). */
export const ADS_VERSION = GOOGLE_ADS_VERSION.version;

/** The sandbox's world: the marketer's manager account, its clients, and their conversion targets. */
export const GOOGLE_CUSTOMERS: Record<string, { name: string; manager: boolean; currency: string; timeZone: string; clients?: string[] }> =
  {
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
export type GoogleCustomer = (typeof GOOGLE_CUSTOMERS)[string];
const GOOGLE_DIRECT = ['1112223334', '5556667778'];
const CONVERSION_ACTIONS = [
  { id: '9001', name: 'Purchase', status: 'ENABLED' },
  { id: '9002', name: 'Lead form submitted', status: 'ENABLED' },
  { id: '9003', name: 'Old checkout (removed)', status: 'REMOVED' },
];

/** A refusal in the Ads API's shape: a google.rpc status with a GoogleAdsFailure naming its error code. */
export const adsFailure = (res: ServerResponse, status: number, statusText: string, errorCode: Json, message: string) =>
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
export const dataManagerWorld: DataManagerWorld = {
  canOperate: (operatingAccountId, loginAccountId) =>
    Boolean(GOOGLE_CUSTOMERS[operatingAccountId]) && adsAccessAllowed(operatingAccountId, loginAccountId),
  hasEnabledConversionAction: (accountId, conversionActionId) =>
    !GOOGLE_CUSTOMERS[accountId]?.manager &&
    CONVERSION_ACTIONS.some((action) => action.id === conversionActionId && action.status === 'ENABLED'),
};

/** Answers the refusal and returns false unless the caller may act on the customer with the login-customer-id it sent. */
export function adsAccess(req: IncomingMessage, res: ServerResponse, customerId: string): boolean {
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

/** `googleAds:search` over customer_client (the manager's clients) and conversion_action (a client's targets). */
export async function googleAdsSearch(req: IncomingMessage, res: ServerResponse, customerId: string) {
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
      fieldMask: 'customerClient.id,customerClient.descriptiveName,customerClient.currencyCode,customerClient.manager,customerClient.level',
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

/** `customers:listAccessibleCustomers`: the customers the marketer reaches directly. */
export const listAccessibleCustomers = (res: ServerResponse) =>
  json(res, 200, { resourceNames: GOOGLE_DIRECT.map((id) => `customers/${id}`) });

/** A Google Ads API call: it needs a live token with the adwords scope (UNAUTHENTICATED otherwise). */
export const adsCall =
  (store: SandboxStore, handler: (req: IncomingMessage, res: ServerResponse, customerId: string) => unknown): RouteHandler =>
  (req, res, url, params) => {
    const caller = store.bearerToken(req, url, 'google');
    if (!caller || !caller.scope.includes('/auth/adwords')) return googleUnauthenticated(res);
    return handler(req, res, params.customer!);
  };
