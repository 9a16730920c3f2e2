/**
 * The sandbox's Microsoft Advertising world and its Customer Management and Campaign Management basics:
 * the app, the developer token, the marketer, their accounts and offline conversion goals; `User/Query`,
 * `Accounts/Search`, `Account/Query` and `ConversionGoals/QueryByIds`, each with the developer token and a
 * live token checked first, and the AdApiFaultDetail they refuse with.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MICROSOFT_ADS_VERSION } from '@/lib/server/connectors/microsoft_ads/version';
import type { SandboxAdAccount } from '@/sandbox/adData';
import type { Brand } from '@/sandbox/consent';
import type { RouteHandler } from '@/sandbox/routes';
import { json, readBody } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';

/** The REST version the sandbox serves: the one the app pins (its folder's version.ts). */
export const REST_VERSION = MICROSOFT_ADS_VERSION.version;

/** The app registered with the fake Microsoft identity platform (microsoftEnv and SANDBOX_CLIENTS carry it). */
export const MICROSOFT_CLIENT = { id: '00000000-5a4d-4b6f-8e1a-5a4db0c0ffee', secret: 'sandbox-microsoft-secret' };
/** The developer token every Ad API call must carry. */
export const MICROSOFT_DEVELOPER_TOKEN = 'SANDBOXDEVTOKEN';

const MICROSOFT_USER = { Id: 7001, UserName: 'sandbox.marketer', ContactInfo: { Email: 'sandbox.marketer@outlook.example' } };
/** TimeZone is Microsoft's TimeZoneType enum (not an IANA name): each account's day is its own time zone's day. */
export const MICROSOFT_ACCOUNTS = [
  {
    Id: 301,
    Name: 'Acme Shoes (Microsoft)',
    Number: 'F1000301',
    ParentCustomerId: 9001,
    CurrencyCode: 'USD',
    AccountLifeCycleStatus: 'Active',
    TimeZone: 'EasternTimeUSCanada',
  },
  {
    Id: 302,
    Name: 'Acme Outlet (Microsoft)',
    Number: 'F1000302',
    ParentCustomerId: 9001,
    CurrencyCode: 'USD',
    AccountLifeCycleStatus: 'Active',
    TimeZone: 'PacificTimeUSCanadaTijuana',
  },
];
export type MicrosoftAccount = (typeof MICROSOFT_ACCOUNTS)[number];
/** The IANA zones of the sandbox accounts' TimeZone values (Microsoft keeps its own names). */
const IANA_TIME_ZONES: Record<string, string> = {
  EasternTimeUSCanada: 'America/New_York',
  PacificTimeUSCanadaTijuana: 'America/Los_Angeles',
};
/** An account as sandbox/adData.ts keeps it: its figures are days of its own time zone. */
export const adAccountOf = (account: MicrosoftAccount): SandboxAdAccount => ({
  id: String(account.Id),
  name: account.Name,
  currency: account.CurrencyCode,
  timeZone: IANA_TIME_ZONES[account.TimeZone] ?? 'America/Los_Angeles',
});
/** The accounts' offline conversion goals: the names an offline conversion may be applied to. */
export const MICROSOFT_GOALS = [
  { Id: 8001, Name: 'Offline purchase', Type: 'OfflineConversion', Status: 'Active' },
  { Id: 8002, Name: 'Qualified lead', Type: 'OfflineConversion', Status: 'Active' },
];

/** How Microsoft looks on its consent and error pages. */
export const MICROSOFT: Brand = { provider: 'microsoft', name: 'Microsoft', color: '#0067b8', account: MICROSOFT_USER.ContactInfo.Email };

/** A refusal in the Ad API's shape (AdApiFaultDetail with one AdApiError). */
export const adApiFault = (res: ServerResponse, status: number, code: number, errorCode: string, message: string) =>
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

/** Answers the Ad API's fault to a call without a valid DeveloperToken header (105) or a live token (109); true when it did. */
export function refusedCredentials(store: SandboxStore, req: IncomingMessage, res: ServerResponse, url: URL) {
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
export const adApi =
  (store: SandboxStore, handler: RouteHandler): RouteHandler =>
  (req, res, url, params, context) =>
    refusedCredentials(store, req, res, url) ? undefined : handler(req, res, url, params, context);

/** `User/Query`: the sandbox user, a manager of the one sandbox customer. */
export const userQuery: RouteHandler = (_req, res) =>
  json(res, 200, {
    User: { ...MICROSOFT_USER, Name: { FirstName: 'Sandbox', LastName: 'Marketer' } },
    CustomerRoles: [{ CustomerId: 9001, RoleId: 41, AccountIds: null }],
  });

/** `Accounts/Search`: the user's accounts (PageInfo required). */
export async function searchAccounts(req: IncomingMessage, res: ServerResponse) {
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
export async function queryAccount(req: IncomingMessage, res: ServerResponse) {
  const body = JSON.parse((await readBody(req)) || '{}') as { AccountId?: unknown };
  // Every sandbox account belongs to the one customer the sandbox user manages.
  const account = MICROSOFT_ACCOUNTS.find((candidate) => String(candidate.Id) === String(body.AccountId));
  if (!account) return adApiFault(res, 400, 1102, 'InvalidAccountId', 'The account ID is invalid.');
  return json(res, 200, { Account: account });
}

/** `ConversionGoals/QueryByIds`: the account's offline conversion goals (ConversionGoalTypes required). */
export async function conversionGoals(req: IncomingMessage, res: ServerResponse) {
  if (!accountOf(req, res)) return;
  const body = JSON.parse((await readBody(req)) || '{}') as { ConversionGoalTypes?: string };
  if (!body.ConversionGoalTypes) return adApiFault(res, 400, 1001, 'NullParameter', 'ConversionGoalTypes cannot be null.');
  return json(res, 200, { ConversionGoals: MICROSOFT_GOALS, PartialErrors: null });
}

/** The account named by the CustomerAccountId header, sent with its owner as CustomerId; else a fault is answered. */
export function accountOf(req: IncomingMessage, res: ServerResponse) {
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
