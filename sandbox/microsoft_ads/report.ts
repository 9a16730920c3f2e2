/**
 * The sandbox's Microsoft Advertising Reporting service: SubmitGenerateReport validated as Microsoft
 * validates it, PollGenerateReport (Pending, then Success with a five-minute download URL), and the
 * download itself (sandbox/microsoft_ads/reportFile.ts makes the file).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { dayIn } from '@/lib/shared/connections/windows';
import type { AdDataLevel } from '@/sandbox/adData';
import { adAccountOf, adApiFault, MICROSOFT_ACCOUNTS, type MicrosoftAccount } from '@/sandbox/microsoft_ads/accounts';
import { buildReport, type SubmittedReport } from '@/sandbox/microsoft_ads/reportFile';
import { json, readBody } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';

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

/** One day of a Date object ({Day, Month, Year}) as YYYY-MM-DD, or null when it is not a calendar day. */
function reportDate(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const { Day, Month, Year } = value as Record<string, unknown>;
  if (![Day, Month, Year].every((part) => Number.isInteger(part))) return null;
  const date = new Date(Date.UTC(Year as number, (Month as number) - 1, Day as number));
  if (date.getUTCFullYear() !== Year || date.getUTCMonth() !== (Month as number) - 1 || date.getUTCDate() !== Day) return null;
  return date.toISOString().slice(0, 10);
}

/** The Reporting service on the shared store: its submitted reports and their download URLs. */
export function createReports(store: SandboxStore) {
  const reports = new Map<string, SubmittedReport>();
  const downloads = new Map<string, { zip: Uint8Array; expiresAt: number }>();

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
    if (report.zip === undefined) report.zip = buildReport(store, report);
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

  return { submitReport, pollReport, downloadReport };
}
