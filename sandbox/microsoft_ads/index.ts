/**
 * The sandbox's Microsoft: the identity platform v2.0 (consent, code and rotating refresh grants, AADSTS
 * errors) and Microsoft Advertising REST v13 (the user, accounts, conversion goals, offline conversions,
 * reports; developer token and CustomerId headers checked).
 */
import { API_VERSIONS } from '@/lib/server/connectors/versions';
import { dayIn } from '@/lib/shared/connections/windows';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { strToU8, zipSync } from 'fflate';
import { type AdDataLevel, type AdFacts, type SandboxAdAccount } from '@/sandbox/adData';
import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import { answerFailure } from '@/sandbox/conversions';
import { routeTable, type RouteHandler } from '@/sandbox/routes';
import { json, readBody } from '@/sandbox/server';
import { token, type Grant, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';

/** The REST version the sandbox serves: the one the app pins (lib/server/connectors/versions.ts). */
const REST_VERSION = API_VERSIONS.microsoftAds.version;

export const MICROSOFT_CLIENT = { id: '00000000-5a4d-4b6f-8e1a-5a4db0c0ffee', secret: 'sandbox-microsoft-secret' };
export const MICROSOFT_DEVELOPER_TOKEN = 'SANDBOXDEVTOKEN';

const MICROSOFT_USER = { Id: 7001, UserName: 'sandbox.marketer', ContactInfo: { Email: 'sandbox.marketer@outlook.example' } };
/** TimeZone is Microsoft's TimeZoneType enum (not an IANA name): each account's day is its own time zone's day. */
const MICROSOFT_ACCOUNTS = [
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
type MicrosoftAccount = (typeof MICROSOFT_ACCOUNTS)[number];
/** The IANA zones of the sandbox accounts' TimeZone values (Microsoft keeps its own names). */
const IANA_TIME_ZONES: Record<string, string> = {
  EasternTimeUSCanada: 'America/New_York',
  PacificTimeUSCanadaTijuana: 'America/Los_Angeles',
};
/** An account as sandbox/adData.ts keeps it: its figures are days of its own time zone. */
const adAccountOf = (account: MicrosoftAccount): SandboxAdAccount => ({
  id: String(account.Id),
  name: account.Name,
  currency: account.CurrencyCode,
  timeZone: IANA_TIME_ZONES[account.TimeZone] ?? 'America/Los_Angeles',
});
const MICROSOFT_GOALS = [
  { Id: 8001, Name: 'Offline purchase', Type: 'OfflineConversion', Status: 'Active' },
  { Id: 8002, Name: 'Qualified lead', Type: 'OfflineConversion', Status: 'Active' },
];
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

/**
 * The ReportTimeZone value set of the Reporting service v13, in Microsoft's own order (EnumerationValue
 * 1–75), from "ReportTimeZone Value Set - Reporting" (learn.microsoft.com/advertising/reporting-service/
 * reporttimezone). It is not the account's TimeZoneType: Midway is `MidwayIslandandSamoa` here and
 * `MidwayIslandAndSamoa` in account settings. A value outside it does not deserialize, and the request
 * is refused.
 */
export const REPORT_TIME_ZONES: readonly string[] = [
  'Nukualofa',
  'FijiKamchatkaMarshallIsland',
  'AucklandWellington',
  'MagadanSolomonIslandNewCaledonia',
  'Vladivostok',
  'Hobart',
  'GuamPortMoresby',
  'CanberraMelbourneSydney',
  'Brisbane',
  'Darwin',
  'Adelaide',
  'Yakutsk',
  'Seoul',
  'OsakaSapporoTokyo',
  'Taipei',
  'Perth',
  'KualaLumpurSingapore',
  'IrkutskUlaanBataar',
  'BeijingChongqingHongKongUrumqi',
  'Krasnoyarsk',
  'BangkokHanoiJakarta',
  'Rangoon',
  'SriJayawardenepura',
  'AstanaDhaka',
  'AlmatyNovosibirsk',
  'Kathmandu',
  'ChennaiKolkataMumbaiNewDelhi',
  'IslandamabadKarachiTashkent',
  'Ekaterinburg',
  'Kabul',
  'BakuTbilisiYerevan',
  'AbuDhabiMuscat',
  'Tehran',
  'Nairobi',
  'MoscowStPetersburgVolgograd',
  'KuwaitRiyadh',
  'Baghdad',
  'Jerusalem',
  'HelsinkiKyivRigaSofiaTallinnVilnius',
  'HararePretoria',
  'Cairo',
  'Bucharest',
  'AthensIslandanbulMinsk',
  'WestCentralAfrica',
  'SarajevoSkopjeWarsawZagreb',
  'BrusselsCopenhagenMadridParis',
  'BelgradeBratislavaBudapestLjubljanaPrague',
  'AmsterdamBerlinBernRomeStockholmVienna',
  'CasablancaMonrovia',
  'GreenwichMeanTimeDublinEdinburghLisbonLondon',
  'Azores',
  'CapeVerdeIsland',
  'MidAtlantic',
  'Brasilia',
  'BuenosAiresGeorgetown',
  'Greenland',
  'Newfoundland',
  'AtlanticTimeCanada',
  'CaracasLaPaz',
  'Santiago',
  'BogotaLimaQuito',
  'EasternTimeUSCanada',
  'IndianaEast',
  'CentralAmerica',
  'CentralTimeUSCanada',
  'GuadalajaraMexicoCityMonterrey',
  'Saskatchewan',
  'Arizona',
  'ChihuahuaLaPazMazatlan',
  'MountainTimeUSCanada',
  'PacificTimeUSCanadaTijuana',
  'Alaska',
  'Hawaii',
  'MidwayIslandandSamoa',
  'InternationalDateLineWest',
];

/** How the Reporting service answers a report request it refuses: ApiFaultDetail with one OperationError (HTTP 400). */
const REPORT_ERRORS = {
  NullRequest: [100, 'The request message is null.'],
  ReportingServiceNullReportRequest: [2001, 'The report request is null.'],
  ReportingServiceUnknownReportType: [2002, 'The report request type is not valid.'],
  ReportingServiceAccountNotAuthorized: [
    2003,
    'The specified report request contains at least one account that you do not have privileges to access.',
  ],
  ReportingServiceNoCompleteDataAvaliable: [
    2004,
    'You requested a report with complete data for all included campaigns. Currently only partial data is available in the respective time zone of one or more campaigns.',
  ],
  ReportingServiceInvalidReportAggregation: [2007, 'The report aggregation is not valid for the specified report time period.'],
  ReportingServiceInvalidReportTimeSelection: [
    2008,
    'The report time is null or contains more than one predefined time, custom date, or custom date range start and end.',
  ],
  ReportingServiceInvalidCustomDateRangeStart: [2009, 'The report time contains a custom date range start value that is not valid.'],
  ReportingServiceInvalidCustomDateRangeEnd: [2010, 'The report time contains a custom date range end value that is not valid.'],
  ReportingServiceEndDateBeforeStartDate: [
    2011,
    'The report time contains a custom date range that is not valid; the end date cannot be earlier than the start date.',
  ],
  ReportingServiceNullColumns: [2014, 'The list of columns to include in the report cannot be null or empty.'],
  ReportingServiceRequiredColumnsNotSelected: [2015, 'The list of columns to include in the report must contain all required columns.'],
  ReportingServiceDuplicateColumns: [2016, 'The list of columns to include in the report contains duplicate.'],
  ReportingServiceNoMeasureSelected: [2017, 'The report request does not specify at least one measurement column.'],
  ReportingServiceInvalidAccountReportScope: [2026, 'The account report scope does not contain account identifiers.'],
  ReportingServiceInvalidAccountIds: [2035, 'The report request contains at least one account identifier that is not valid.'],
  ReportingServiceInvalidFutureStartDate: [2041, 'The specified report time start date is in the future.'],
  ReportingServiceInvalidReportId: [2100, 'The report identifier is not valid.'],
} as const satisfies Record<string, readonly [number, string]>;
type ReportError = keyof typeof REPORT_ERRORS;

/** Columns every performance report below takes (a subset of Microsoft's value sets: the ones the sandbox can fill). */
const COMMON_COLUMNS = ['AccountName', 'AccountNumber', 'AccountId', 'TimePeriod', 'CampaignName', 'CampaignId', 'CurrencyCode'];
/** Performance statistics: a report needs at least one (2017). Conversions is deprecated: Microsoft answers 0 in it, as here. */
const MEASURE_COLUMNS = ['Impressions', 'Clicks', 'Ctr', 'AverageCpc', 'Spend', 'Conversions', 'ConversionsQualified', 'Revenue'];
/**
 * The goals report's statistics (GoalsAndFunnelsReportColumn, learn.microsoft.com/advertising/reporting-service/
 * goalsandfunnelsreportcolumn): it has no Conversions column. AllConversions and ViewThroughConversions are
 * deprecated and answer 0; AllConversionsQualified and ViewThroughConversionsQualified are decimals.
 */
const GOAL_MEASURES = ['AllConversions', 'AllConversionsQualified', 'Assists', 'ViewThroughConversions', 'ViewThroughConversionsQualified'];
/** The goals report's columns the sandbox fills (a subset of GoalsAndFunnelsReportColumn); Goal and TimePeriod are required. */
const GOAL_COLUMNS = ['AccountName', 'AccountNumber', 'AccountId', 'TimePeriod', 'Goal', 'GoalId', 'GoalType', ...GOAL_MEASURES];
const GOAL_REQUIRED = ['Goal', 'TimePeriod'];
/** The report types the sandbox serves, their level in sandbox/adData.ts and their columns (Campaign/AdGroup/AdPerformanceReportColumn). */
const REPORT_TYPES: Record<string, { level: AdDataLevel; columns: ReadonlySet<string>; goals?: true }> = {
  // Conversions per goal and day (offline conversions included), as sandbox/reporting.ts records them.
  GoalsAndFunnelsReportRequest: { level: 'campaign', columns: new Set(GOAL_COLUMNS), goals: true },
  CampaignPerformanceReportRequest: { level: 'campaign', columns: new Set([...COMMON_COLUMNS, ...MEASURE_COLUMNS]) },
  AdGroupPerformanceReportRequest: {
    level: 'ad_group',
    columns: new Set([...COMMON_COLUMNS, 'AdGroupName', 'AdGroupId', ...MEASURE_COLUMNS]),
  },
  AdPerformanceReportRequest: {
    level: 'ad',
    columns: new Set([...COMMON_COLUMNS, 'AdGroupName', 'AdGroupId', 'AdId', 'AdTitle', ...MEASURE_COLUMNS]),
  },
};
/** A download URL works for five minutes (ReportRequestStatus.ReportDownloadUrl). */
const DOWNLOAD_TTL_MS = 5 * 60 * 1000;

/** A report request as Submit received it, until it is polled to Success and downloaded. */
interface SubmittedReport {
  id: string;
  accounts: MicrosoftAccount[];
  level: AdDataLevel;
  columns: string[];
  from: string;
  to: string;
  request: Record<string, unknown>;
  polls: number;
  /** How many polls answer Pending before Success: one, or two for a window longer than 90 days. */
  pendingPolls: number;
  /** The zipped CSV, made on the first Success (null: no rows, so no download URL). */
  zip?: Uint8Array | null;
  /** A goals report (conversions per goal and day) rather than ad performance. */
  goals?: boolean;
}

/** One day of a Date object ({Day, Month, Year}) as YYYY-MM-DD, or null when it is not a calendar day. */
function reportDate(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const { Day, Month, Year } = value as Record<string, unknown>;
  if (![Day, Month, Year].every((part) => Number.isInteger(part))) return null;
  const date = new Date(Date.UTC(Year as number, (Month as number) - 1, Day as number));
  if (date.getUTCFullYear() !== Year || date.getUTCMonth() !== (Month as number) - 1 || date.getUTCDate() !== Day) return null;
  return date.toISOString().slice(0, 10);
}

/** A CSV field as Microsoft writes them: always quoted, quotes doubled. */
const csvField = (value: string) => `"${value.replace(/"/g, '""')}"`;
const money = (micros: number) => (micros / 1_000_000).toFixed(2);

/** One column of one row (FormatVersion 2.0: no thousands separators, dates as yyyy-mm-dd). */
function cellOf(column: string, account: MicrosoftAccount, row: AdFacts): string {
  switch (column) {
    case 'TimePeriod':
      return row.date;
    case 'AccountId':
      return String(account.Id);
    case 'AccountName':
      return account.Name;
    case 'AccountNumber':
      return account.Number;
    case 'CurrencyCode':
      return account.CurrencyCode;
    case 'CampaignId':
      return row.campaignId;
    case 'CampaignName':
      return row.campaignName;
    case 'AdGroupId':
      return row.adGroupId ?? '';
    case 'AdGroupName':
      return row.adGroupName ?? '';
    case 'AdId':
      return row.adId ?? '';
    case 'AdTitle':
      return row.adName ?? '';
    case 'Impressions':
      return String(row.impressions);
    case 'Clicks':
      return String(row.clicks);
    case 'Ctr':
      return row.impressions ? ((row.clicks / row.impressions) * 100).toFixed(2) : '0.00';
    case 'AverageCpc':
      return row.clicks ? (row.spendMicros / row.clicks / 1_000_000).toFixed(2) : '0.00';
    case 'Spend':
      return money(row.spendMicros);
    case 'Conversions':
      return '0';
    case 'ConversionsQualified':
      return row.conversions.toFixed(2);
    case 'Revenue':
      return money(row.valueMicros);
    default:
      return '';
  }
}

/** M/D/YYYY, as the report header writes dates. */
const headerDate = (date: string) => `${Number(date.slice(5, 7))}/${Number(date.slice(8, 10))}/${date.slice(0, 4)}`;

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

  const reports = new Map<string, SubmittedReport>();
  const downloads = new Map<string, { zip: Uint8Array; expiresAt: number }>();

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

  const reportFault = (res: ServerResponse, error: ReportError, details: string | null = null) =>
    json(res, 400, {
      TrackingId: token(''),
      Type: 'ApiFaultDetail',
      BatchErrors: [],
      OperationErrors: [
        { Code: REPORT_ERRORS[error][0], Details: details, ErrorCode: error, Message: REPORT_ERRORS[error][1], Type: 'OperationError' },
      ],
    });

  /**
   * SubmitGenerateReport: validates as Microsoft does (report type, scope reachable through the CustomerId
   * header, columns of the type with TimePeriod for Daily and at least one statistic, the custom date
   * range) and queues the report. "Today" is the scope accounts' own today here (Microsoft uses
   * ReportTimeZone, Pacific by default; the connector sends the account's).
   */
  async function submitReport(req: IncomingMessage, res: ServerResponse) {
    let body: { ReportRequest?: Record<string, unknown> | null };
    try {
      body = JSON.parse((await readBody(req)) || '{}') as typeof body;
    } catch {
      return reportFault(res, 'NullRequest');
    }
    const request = body.ReportRequest;
    if (!request || typeof request !== 'object') return reportFault(res, 'ReportingServiceNullReportRequest');
    const type = REPORT_TYPES[String(request.Type)];
    if (!type) return reportFault(res, 'ReportingServiceUnknownReportType', `Type: ${String(request.Type)}`);

    const scope = (request.Scope ?? {}) as { AccountIds?: unknown };
    if (!Array.isArray(scope.AccountIds) || scope.AccountIds.length === 0)
      return reportFault(res, 'ReportingServiceInvalidAccountReportScope');
    const accounts: MicrosoftAccount[] = [];
    for (const id of scope.AccountIds) {
      const account = MICROSOFT_ACCOUNTS.find((candidate) => String(candidate.Id) === String(id));
      if (!account) return reportFault(res, 'ReportingServiceInvalidAccountIds', String(id));
      accounts.push(account);
    }
    // The CustomerId header must be the customer owning every account; CustomerAccountId one of its accounts.
    const customer = req.headers.customerid;
    const headerAccount = req.headers.customeraccountid;
    const reachable = (account: MicrosoftAccount) => String(account.ParentCustomerId) === customer;
    if (
      !accounts.every(reachable) ||
      (headerAccount && !MICROSOFT_ACCOUNTS.some((account) => String(account.Id) === headerAccount && reachable(account)))
    ) {
      return reportFault(res, 'ReportingServiceAccountNotAuthorized');
    }
    for (const account of accounts) {
      const status = store.adData.failureOf(String(account.Id));
      if (status === 429) {
        return json(
          res,
          429,
          {
            TrackingId: token(''),
            Type: 'AdApiFaultDetail',
            Errors: [
              {
                Code: 117,
                Details: null,
                ErrorCode: 'CallRateExceeded',
                FieldPath: null,
                ForwardCompatibilityMap: null,
                Message:
                  'You have exceeded the number of calls that you are allowed to make in a minute. Please reduce the number of calls you make per minute.',
                Type: 'AdApiError',
              },
            ],
          },
          { 'Retry-After': '1' },
        );
      }
      if (status) return adApiFault(res, status, 0, 'InternalError', 'An internal error has occurred.');
    }

    if (!Array.isArray(request.Columns) || request.Columns.length === 0) return reportFault(res, 'ReportingServiceNullColumns');
    const columns = request.Columns.map(String);
    // An unknown column is an unknown enum value: the request does not deserialize.
    const unknown = columns.find((column) => !type.columns.has(column));
    if (unknown)
      return reportFault(
        res,
        'NullRequest',
        `Requested value '${unknown}' was not found in ${String(request.Type).replace(/Request$/, 'Column')}.`,
      );
    const duplicates = columns.filter((column, index) => columns.indexOf(column) !== index);
    if (duplicates.length) return reportFault(res, 'ReportingServiceDuplicateColumns', [...new Set(duplicates)].join(','));
    if (request.Aggregation !== 'Daily')
      return reportFault(res, 'ReportingServiceInvalidReportAggregation', 'The sandbox serves Daily aggregation only.');
    const required = type.goals ? GOAL_REQUIRED : ['TimePeriod'];
    const missing = required.filter((column) => !columns.includes(column));
    if (missing.length) return reportFault(res, 'ReportingServiceRequiredColumnsNotSelected', missing.join(','));
    if (!columns.some((column) => (type.goals ? GOAL_MEASURES : MEASURE_COLUMNS).includes(column)))
      return reportFault(res, 'ReportingServiceNoMeasureSelected');
    if (request.Format !== undefined && request.Format !== null && request.Format !== 'Csv')
      return reportFault(res, 'NullRequest', 'The sandbox serves Csv reports only.');

    const time = (request.Time ?? null) as Record<string, unknown> | null;
    if (!time || time.PredefinedTime || !time.CustomDateRangeStart || !time.CustomDateRangeEnd)
      return reportFault(res, 'ReportingServiceInvalidReportTimeSelection');
    // ReportTimeZone is an enum: a value outside Microsoft's list does not deserialize.
    if (time.ReportTimeZone !== undefined && time.ReportTimeZone !== null && !REPORT_TIME_ZONES.includes(String(time.ReportTimeZone))) {
      return reportFault(res, 'NullRequest', `Requested value '${String(time.ReportTimeZone)}' was not found in ReportTimeZone.`);
    }
    const from = reportDate(time.CustomDateRangeStart);
    if (!from) return reportFault(res, 'ReportingServiceInvalidCustomDateRangeStart');
    const to = reportDate(time.CustomDateRangeEnd);
    if (!to) return reportFault(res, 'ReportingServiceInvalidCustomDateRangeEnd');
    if (to < from) return reportFault(res, 'ReportingServiceEndDateBeforeStartDate');
    // "Today" at the reports' clock (sandbox/reporting.ts): a test may stand past a midnight.
    const now = store.reporting.clock.now();
    const today = accounts
      .map((account) => dayIn(adAccountOf(account).timeZone, now))
      .sort()
      .at(-1)!;
    if (from > today) return reportFault(res, 'ReportingServiceInvalidFutureStartDate');
    if (to > today) return reportFault(res, 'ReportingServiceInvalidCustomDateRangeEnd', 'The end date cannot be later than today.');
    if (request.ReturnOnlyCompleteData === true && to >= today) return reportFault(res, 'ReportingServiceNoCompleteDataAvaliable');

    const id = `${Date.now()}${randomBytes(5).readUInt32BE(0)}`;
    const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
    reports.set(id, {
      id,
      accounts,
      level: type.level,
      columns,
      from,
      to,
      request,
      polls: 0,
      pendingPolls: days > 90 ? 2 : 1,
      ...(type.goals ? { goals: true } : {}),
    });
    return json(res, 200, { ReportRequestId: id });
  }

  /** PollGenerateReport: Pending for a poll or two, then Success with a fresh five-minute URL (null when no rows). */
  async function pollReport(req: IncomingMessage, res: ServerResponse) {
    let body: { ReportRequestId?: unknown };
    try {
      body = JSON.parse((await readBody(req)) || '{}') as typeof body;
    } catch {
      return reportFault(res, 'NullRequest');
    }
    const report = reports.get(String(body.ReportRequestId ?? ''));
    if (!report) return reportFault(res, 'ReportingServiceInvalidReportId');
    report.polls += 1;
    if (report.polls <= report.pendingPolls) return json(res, 200, { ReportRequestStatus: { ReportDownloadUrl: null, Status: 'Pending' } });
    if (report.zip === undefined) report.zip = buildReport(report);
    if (!report.zip) return json(res, 200, { ReportRequestStatus: { ReportDownloadUrl: null, Status: 'Success' } });
    const key = randomBytes(18).toString('base64url');
    downloads.set(key, { zip: report.zip, expiresAt: Date.now() + DOWNLOAD_TTL_MS });
    const expires = new Date(Date.now() + DOWNLOAD_TTL_MS).toISOString();
    return json(res, 200, {
      ReportRequestStatus: {
        ReportDownloadUrl: `${store.base}/microsoft/reportdownloads/${key}.zip?se=${encodeURIComponent(expires)}&sp=r&sig=${token('')}`,
        Status: 'Success',
      },
    });
  }

  /** A goals report's rows: per account, goal and day of its time zone, what Microsoft has recorded by now (sandbox/reporting.ts). */
  function goalLines(report: SubmittedReport): string[] {
    const lines: string[] = [];
    for (const account of report.accounts) {
      for (const [goalName, days] of store.reporting.microsoftGoals(String(account.Id), adAccountOf(account).timeZone)) {
        const goal = MICROSOFT_GOALS.find((candidate) => candidate.Name === goalName);
        for (const [date, count] of [...days].sort(([a], [b]) => (a < b ? -1 : 1))) {
          if (date < report.from || date > report.to) continue;
          const cell = (column: string) => {
            if (column === 'Goal') return goalName;
            if (column === 'GoalId') return String(goal?.Id ?? '');
            if (column === 'GoalType') return goal?.Type ?? '';
            // Deprecated: Microsoft answers 0 in them. The qualified columns are decimals; no assists, no views.
            if (column === 'AllConversions' || column === 'ViewThroughConversions' || column === 'Assists') return '0';
            if (column === 'AllConversionsQualified') return count.toFixed(2);
            if (column === 'ViewThroughConversionsQualified') return '0.00';
            if (column === 'TimePeriod') return date;
            return cellOf(column, account, { date } as AdFacts);
          };
          lines.push(report.columns.map((column) => csvField(cell(column))).join(','));
        }
      }
    }
    return lines;
  }

  /** The report's CSV (header and footer metadata unless excluded), zipped as one file; null when it has no rows. */
  function buildReport(report: SubmittedReport): Uint8Array | null {
    const lines: string[] = [];
    if (report.goals) lines.push(...goalLines(report));
    for (const account of report.goals ? [] : report.accounts) {
      for (const row of store.adData.rowsOf('microsoft', adAccountOf(account), report.level, report.from, report.to)) {
        lines.push(report.columns.map((column) => csvField(cellOf(column, account, row))).join(','));
      }
    }
    if (lines.length === 0) return null;
    const request = report.request;
    const out: string[] = [];
    if (request.ExcludeReportHeader !== true) {
      const now = new Date();
      const stamp = `${headerDate(now.toISOString().slice(0, 10))} ${now.toISOString().slice(11, 19)} (GMT)`;
      const reportTime = report.from === report.to ? headerDate(report.from) : `${headerDate(report.from)},${headerDate(report.to)}`;
      out.push(
        csvField(
          `Report Name: ${typeof request.ReportName === 'string' ? request.ReportName : `${String(request.Type).replace(/Request$/, '')}-${now.toISOString()}`}`,
        ),
        csvField(`Report Time: ${reportTime}`),
        csvField(`Time Zone: ${String((request.Time as Record<string, unknown>).ReportTimeZone ?? 'PacificTimeUSCanadaTijuana')}`),
        csvField(`Last Completed Available Day: ${stamp}`),
        csvField(`Last Completed Available Hour: ${stamp}`),
        csvField('Report Aggregation: Daily'),
        csvField('Report Filter: '),
        csvField('Potential Incomplete Data: true'),
        csvField(`Rows: ${lines.length}`),
        '',
      );
    }
    if (request.ExcludeColumnHeaders !== true) out.push(report.columns.map(csvField).join(','));
    out.push(...lines);
    if (request.ExcludeReportFooter !== true)
      out.push('', csvField(`©${new Date().getUTCFullYear()} Microsoft Corporation. All rights reserved. `));
    // Microsoft's CSV files start with a UTF-8 byte order mark.
    return zipSync({ [`${report.id}.csv`]: strToU8(`\uFEFF${out.join('\r\n')}\r\n`) });
  }

  /** The signed download URL: no Authorization; past its five minutes the storage refuses it (Azure's XML errors). */
  function downloadReport(res: ServerResponse, key: string) {
    const found = downloads.get(key);
    const xml = (status: number, code: string, message: string) => {
      res.writeHead(status, { 'Content-Type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
    };
    if (!found) return xml(404, 'BlobNotFound', 'The specified blob does not exist.');
    if (found.expiresAt < Date.now()) {
      downloads.delete(key);
      return xml(403, 'AuthenticationFailed', 'Server failed to authenticate the request. Signed expiry time has passed.');
    }
    res.writeHead(200, { 'Content-Type': 'application/x-zip-compressed', 'Content-Length': String(found.zip.byteLength) });
    res.end(Buffer.from(found.zip));
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
