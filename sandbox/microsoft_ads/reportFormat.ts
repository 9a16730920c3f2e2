import { type AdDataLevel, type AdFacts } from '@/sandbox/adData';

import type { MicrosoftAccount } from '@/sandbox/microsoft_ads/accounts';

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
export const REPORT_ERRORS = {
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
export type ReportError = keyof typeof REPORT_ERRORS;

/** Columns every performance report below takes (a subset of Microsoft's value sets: the ones the sandbox can fill). */
const COMMON_COLUMNS = ['AccountName', 'AccountNumber', 'AccountId', 'TimePeriod', 'CampaignName', 'CampaignId', 'CurrencyCode'];
/** Performance statistics: a report needs at least one (2017). Conversions is deprecated: Microsoft answers 0 in it, as here. */
export const MEASURE_COLUMNS = ['Impressions', 'Clicks', 'Ctr', 'AverageCpc', 'Spend', 'Conversions', 'ConversionsQualified', 'Revenue'];
/**
 * The goals report's statistics (GoalsAndFunnelsReportColumn, learn.microsoft.com/advertising/reporting-service/
 * goalsandfunnelsreportcolumn): it has no Conversions column. AllConversions and ViewThroughConversions are
 * deprecated and answer 0; AllConversionsQualified and ViewThroughConversionsQualified are decimals.
 */
export const GOAL_MEASURES = [
  'AllConversions',
  'AllConversionsQualified',
  'Assists',
  'ViewThroughConversions',
  'ViewThroughConversionsQualified',
];
/** The goals report's columns the sandbox fills (a subset of GoalsAndFunnelsReportColumn); Goal and TimePeriod are required. */
const GOAL_COLUMNS = ['AccountName', 'AccountNumber', 'AccountId', 'TimePeriod', 'Goal', 'GoalId', 'GoalType', ...GOAL_MEASURES];
export const GOAL_REQUIRED = ['Goal', 'TimePeriod'];
/** The report types the sandbox serves, their level in sandbox/adData.ts and their columns (Campaign/AdGroup/AdPerformanceReportColumn). */
export const REPORT_TYPES: Record<string, { level: AdDataLevel; columns: ReadonlySet<string>; goals?: true }> = {
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
export const DOWNLOAD_TTL_MS = 5 * 60 * 1000;

/** A report request as Submit received it, until it is polled to Success and downloaded. */
export interface SubmittedReport {
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
export function reportDate(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const { Day, Month, Year } = value as Record<string, unknown>;
  if (![Day, Month, Year].every((part) => Number.isInteger(part))) return null;
  const date = new Date(Date.UTC(Year as number, (Month as number) - 1, Day as number));
  if (date.getUTCFullYear() !== Year || date.getUTCMonth() !== (Month as number) - 1 || date.getUTCDate() !== Day) return null;
  return date.toISOString().slice(0, 10);
}

/** A CSV field as Microsoft writes them: always quoted, quotes doubled. */
export const csvField = (value: string) => `"${value.replace(/"/g, '""')}"`;
const money = (micros: number) => (micros / 1_000_000).toFixed(2);

/** One column of one row (FormatVersion 2.0: no thousands separators, dates as yyyy-mm-dd). */
export function cellOf(column: string, account: MicrosoftAccount, row: AdFacts): string {
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
export const headerDate = (date: string) => `${Number(date.slice(5, 7))}/${Number(date.slice(8, 10))}/${date.slice(0, 4)}`;
