import { parse } from 'csv-parse/sync';
import { strFromU8, unzipSync } from 'fflate';
import type { AdLevel, AdRow } from '@/lib/shared/connections/rows';
import { dayIn } from '@/lib/shared/connections/windows';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { accountHeaders } from '@/lib/server/connectors/microsoft_ads/api';
import { microsoftAdsError } from '@/lib/server/connectors/microsoft_ads/errors';
import { microsoftConfig } from '@/lib/server/connectors/microsoft_ads/config';
import { bearer } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Report } from '@/lib/server/connectors/types';
import { errorFields, log } from '@/lib/server/log';
import { ianaTimeZone, reportTimeZoneOf } from '@/lib/server/connectors/microsoft_ads/timeZones';

/**
 * Ad performance from the Microsoft Advertising Reporting API (REST v13): one report per account and
 * window (SubmitGenerateReport), polled until it is ready (PollGenerateReport), then the zipped CSV
 * downloaded from the URL it gives (valid five minutes), unzipped and read row by row.
 */

/** The report request type for each level. */
export const REPORT_TYPES: Record<AdLevel, string> = {
  campaign: 'CampaignPerformanceReportRequest',
  ad_group: 'AdGroupPerformanceReportRequest',
  ad: 'AdPerformanceReportRequest',
};

// Conversions is deprecated (Microsoft reports 0 in it): ConversionsQualified holds the conversions now.
const STATISTICS = ['Impressions', 'Clicks', 'Spend', 'ConversionsQualified', 'Revenue'];
const ACCOUNT = ['TimePeriod', 'AccountId', 'AccountName', 'CurrencyCode', 'CampaignId', 'CampaignName'];

/** The columns asked for at each level (names of Campaign/AdGroup/AdPerformanceReportColumn). */
export const REPORT_COLUMNS: Record<AdLevel, string[]> = {
  campaign: [...ACCOUNT, ...STATISTICS],
  ad_group: [...ACCOUNT, 'AdGroupId', 'AdGroupName', ...STATISTICS],
  ad: [...ACCOUNT, 'AdGroupId', 'AdGroupName', 'AdId', 'AdTitle', ...STATISTICS],
};

/** Rows handed to the caller at a time. */
export const PAGE_SIZE = 1000;

const reportDate = (date: string) => ({ Day: Number(date.slice(8, 10)), Month: Number(date.slice(5, 7)), Year: Number(date.slice(0, 4)) });

/**
 * The SubmitGenerateReport body: Daily rows of one account from `from` to `to` (its own days), CSV in
 * format 2.0 (no thousands separators, dates yyyy-mm-dd), column names only (no header or footer
 * metadata), today's partial figures included. `timeZone` is the account's TimeZone: it says which
 * day is today for the service (Pacific time otherwise).
 */
export function reportRequestBody(level: AdLevel, accountId: string, from: string, to: string, timeZone?: string | null) {
  return dailyReportBody(
    REPORT_TYPES[level],
    `SignalBridge ${level} ${accountId} ${from}..${to}`,
    REPORT_COLUMNS[level],
    accountId,
    from,
    to,
    timeZone,
  );
}

/** The body of any Daily CSV report of one account (the performance reports, the goals report of reconciliation). */
export function dailyReportBody(
  type: string,
  name: string,
  columns: string[],
  accountId: string,
  from: string,
  to: string,
  timeZone?: string | null,
) {
  const reportTimeZone = reportTimeZoneOf(timeZone);
  return {
    ReportRequest: {
      Type: type,
      ReportName: name,
      Format: 'Csv',
      FormatVersion: '2.0',
      ExcludeColumnHeaders: false,
      ExcludeReportHeader: true,
      ExcludeReportFooter: true,
      ReturnOnlyCompleteData: false,
      Aggregation: 'Daily',
      Columns: columns,
      Scope: { AccountIds: [Number(accountId)] },
      Time: {
        CustomDateRangeStart: reportDate(from),
        CustomDateRangeEnd: reportDate(to),
        ...(reportTimeZone ? { ReportTimeZone: reportTimeZone } : {}),
      },
    },
  };
}

/**
 * The records of a CSV text (RFC 4180: quoted fields may hold commas, doubled quotes and line breaks;
 * CRLF or LF), read by csv-parse. A leading byte order mark is skipped; rows may differ in length (the
 * report's header lines and footer have one field), and a blank line is one empty field.
 */
export function parseCsv(text: string): string[][] {
  return parse(text, { bom: true, relax_column_count: true, relax_quotes: true }) as string[][];
}

/** A report number: "--" (not computed) and empty are 0; thousands separators (format 1.0) are dropped. */
function reportNumber(value: string | undefined, column: string): number {
  const text = (value ?? '').trim().replace(/,/g, '');
  if (text === '' || text === '--') return 0;
  const number = Number(text);
  if (!Number.isFinite(number)) throw unreadable(`${column} is "${value}"`);
  return number;
}

/** A TimePeriod of a Daily report: yyyy-mm-dd (format 2.0), or M/D/YYYY as format 1.0 wrote it. */
function reportDay(value: string | undefined): string {
  const text = (value ?? '').trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(text);
  if (us) return `${us[3]}-${us[1]!.padStart(2, '0')}-${us[2]!.padStart(2, '0')}`;
  throw unreadable(`TimePeriod is "${value}"`);
}

const unreadable = (what: string) => {
  log.error({ component: 'platforms', platform: 'microsoft_ads', what }, 'Microsoft Advertising report unreadable');
  return new PlatformError(
    'microsoft_ads',
    'retryable',
    `Microsoft Advertising sent a report we could not read (${what}). Try again later.`,
  );
};

/** What the rows of one account's report share: its level, and its time zone (not in the CSV). */
export interface ReportContext {
  level: AdLevel;
  account: AdAccount;
  timeZone: string;
}

/**
 * The AdRows of a report CSV. Rows before the column names (report header metadata) and rows that do
 * not have one field per column (blank lines, the copyright footer) are skipped.
 */
export function* adRowsOf(csv: string, context: ReportContext): Generator<AdRow> {
  let columns: Map<string, number> | null = null;
  let width = 0;
  for (const record of parseCsv(csv)) {
    if (!columns) {
      if (record.includes('TimePeriod') && record.includes('CampaignId')) {
        columns = new Map(record.map((name, index) => [name.trim(), index]));
        width = record.length;
      }
      continue;
    }
    // Blank lines and the one-field footer ("©2026 Microsoft Corporation…") are not rows.
    if (record.length <= 1) continue;
    // A short or long row means a damaged file: writing the rest would delete that row's figures.
    if (record.length !== width)
      throw new PlatformError('microsoft_ads', 'retryable', 'Microsoft Advertising sent a damaged report. Trying again.');
    const cell = (name: string) => {
      const index = columns!.get(name);
      return index === undefined ? undefined : record[index];
    };
    const text = (name: string) => cell(name) ?? null;
    const { level } = context;
    yield {
      date: reportDay(cell('TimePeriod')),
      platform: 'microsoft_ads',
      account_id: text('AccountId') || context.account.id,
      account_name: text('AccountName') || context.account.name,
      currency: text('CurrencyCode') || context.account.currency || '',
      time_zone: context.timeZone,
      campaign_id: text('CampaignId') ?? '',
      campaign_name: text('CampaignName') ?? '',
      ad_group_id: level === 'campaign' ? null : text('AdGroupId'),
      ad_group_name: level === 'campaign' ? null : text('AdGroupName'),
      ad_id: level === 'ad' ? text('AdId') : null,
      ad_name: level === 'ad' ? text('AdTitle') : null,
      impressions: reportNumber(cell('Impressions'), 'Impressions'),
      clicks: reportNumber(cell('Clicks'), 'Clicks'),
      spend: reportNumber(cell('Spend'), 'Spend'),
      conversions: reportNumber(cell('ConversionsQualified') ?? cell('Conversions'), 'ConversionsQualified'),
      conversion_value: reportNumber(cell('Revenue'), 'Revenue'),
    };
  }
  if (!columns && csv.trim()) throw unreadable('no column names');
}

/** The one CSV file of a downloaded report zip, as text. */
export function unzipReport(zip: Uint8Array): string {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip);
  } catch {
    throw unreadable('not a zip file');
  }
  const name = Object.keys(files).find((file) => /\.(csv|txt)$/i.test(file)) ?? Object.keys(files)[0];
  if (!name) throw unreadable('an empty zip file');
  return strFromU8(files[name]!);
}

/** When a throttled caller may call again, from a Retry-After header (seconds or an HTTP date). */
function retryAtOf(retryAfter: string | null, now = Date.now()): Date | undefined {
  if (!retryAfter) return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return new Date(now + seconds * 1000);
  const at = Date.parse(retryAfter);
  return Number.isNaN(at) ? undefined : new Date(at);
}

/** A refused reporting call, classified by Microsoft's table; a throttled one comes back after its Retry-After. */
export function reportError(status: number, body: Record<string, unknown>, retryAfter: string | null = null): PlatformError {
  return microsoftAdsError(status, body, retryAtOf(retryAfter));
}

type Fetch = typeof fetch;

export interface ReportOptions {
  /** Waits between polls (tests pass one that does not sleep). */
  sleep?: (ms: number) => Promise<void>;
  fetch?: Fetch;
  /** Waits before each poll; the last one repeats. */
  pollDelaysMs?: number[];
  /** How long a report may stay Pending before we give up (retryable). */
  maxWaitMs?: number;
  pageSize?: number;
}

const TIMEOUT_MS = 30_000;
const DEFAULT_POLL_DELAYS_MS = [500, 1000, 2000, 4000, 8000, 15_000, 30_000];
const DEFAULT_MAX_WAIT_MS = 15 * 60 * 1000;

/** The Reporting API's calls (JSON calls, and a report submitted, polled and downloaded), shared by every report we read. */
export function reportingClient(options: ReportOptions = {}) {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const delays = options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS;
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;

  async function send(url: string, init: RequestInit, onCall?: () => void): Promise<Response> {
    onCall?.();
    try {
      return await (options.fetch ?? fetch)(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      log.warn(
        { component: 'platforms', platform: 'microsoft_ads', origin: new URL(url).origin, ...errorFields(error) },
        'Microsoft Advertising unreachable',
      );
      throw new PlatformError('microsoft_ads', 'retryable', 'Microsoft Advertising could not be reached. Try again in a minute.');
    }
  }

  /** One JSON call with the bearer and developer tokens and the account's headers; throws reportError unless 200. */
  async function call(url: string, accessToken: string, account: AdAccount, payload: unknown, onCall?: () => void) {
    const response = await send(
      url,
      {
        method: 'POST',
        headers: {
          ...bearer(accessToken),
          DeveloperToken: microsoftConfig().developerToken,
          'Content-Type': 'application/json',
          ...accountHeaders(account),
        },
        body: JSON.stringify(payload),
      },
      onCall,
    );
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { raw: text.slice(0, 200) };
    }
    if (response.status !== 200) throw reportError(response.status, body, response.headers.get('retry-after'));
    return body;
  }

  /** Submits, polls until Success, and downloads: the report's CSV text, or null when it has no rows. */
  async function reportCsv(accessToken: string, account: AdAccount, payload: unknown, onCall?: () => void): Promise<string | null> {
    const config = microsoftConfig();
    const submitted = await call(`${config.reportingUrl}/GenerateReport/Submit`, accessToken, account, payload, onCall);
    const id = submitted.ReportRequestId;
    if (typeof id !== 'string' || !id)
      throw new PlatformError('microsoft_ads', 'retryable', 'Microsoft Advertising did not queue the report. Try again later.');
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      const delay = delays[Math.min(attempt, delays.length - 1)] ?? 1000;
      if (waited + delay > maxWaitMs) {
        throw new PlatformError('microsoft_ads', 'retryable', 'Microsoft Advertising has not finished the report yet. Trying again later.');
      }
      await sleep(delay);
      waited += delay;
      const polled = await call(`${config.reportingUrl}/GenerateReport/Poll`, accessToken, account, { ReportRequestId: id }, onCall);
      const status = (polled.ReportRequestStatus ?? {}) as { Status?: string; ReportDownloadUrl?: string | null };
      if (status.Status === 'Pending') continue;
      if (status.Status === 'Success') {
        if (!status.ReportDownloadUrl) return null;
        // The URL is signed: no Authorization header goes to the storage it points to.
        const response = await send(status.ReportDownloadUrl, { method: 'GET' }, onCall);
        if (!response.ok) {
          log.warn(
            { component: 'platforms', platform: 'microsoft_ads', status: response.status },
            'Microsoft Advertising report download failed',
          );
          throw new PlatformError(
            'microsoft_ads',
            'retryable',
            'The Microsoft Advertising report could not be downloaded (its link lasts five minutes). Trying again later.',
          );
        }
        return unzipReport(new Uint8Array(await response.arrayBuffer()));
      }
      log.warn({ component: 'platforms', platform: 'microsoft_ads', reportStatus: status.Status }, 'Microsoft Advertising report failed');
      throw new PlatformError(
        'microsoft_ads',
        'retryable',
        `Microsoft Advertising could not build the report (status ${status.Status ?? 'unknown'}). Trying again later.`,
      );
    }
  }

  return { call, reportCsv };
}

/** Reading ad performance through Microsoft's Reporting API; options only change how it waits and fetches. */
export function createMicrosoftReport(options: ReportOptions = {}): Report {
  const pageSize = options.pageSize ?? PAGE_SIZE;
  const { call, reportCsv } = reportingClient(options);

  return async function* report(session, request) {
    const { account, level, onCall } = request;
    const found = await call(
      `${microsoftConfig().customerManagementUrl}/Account/Query`,
      session.accessToken,
      account,
      { AccountId: Number(account.id) },
      onCall,
    );
    const details = (found.Account ?? {}) as { Name?: string; CurrencyCode?: string; TimeZone?: string };
    const iana = ianaTimeZone(details.TimeZone);
    if (!iana)
      log.error({ component: 'platforms', platform: 'microsoft_ads', timeZone: details.TimeZone }, 'Microsoft time zone not mapped');
    const timeZone = iana ?? 'UTC';
    // Microsoft refuses days after the account's today: a window in the future has no rows yet.
    const today = iana ? dayIn(iana) : null;
    if (today && request.from > today) return;
    const to = today && request.to > today ? today : request.to;
    if (to < request.from) return;

    const csv = await reportCsv(
      session.accessToken,
      account,
      reportRequestBody(level, account.id, request.from, to, details.TimeZone),
      onCall,
    );
    if (csv === null) return;
    const context = {
      level,
      account: { ...account, name: details.Name ?? account.name, currency: details.CurrencyCode ?? account.currency },
      timeZone,
    };
    let page: AdRow[] = [];
    for (const row of adRowsOf(csv, context)) {
      page.push(row);
      if (page.length >= pageSize) {
        yield page;
        page = [];
      }
    }
    if (page.length) yield page;
  };
}

export const microsoftReport: Report = createMicrosoftReport();
