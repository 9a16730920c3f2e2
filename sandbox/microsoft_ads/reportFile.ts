/**
 * A Microsoft Advertising report's file: its CSV as the Reporting service writes it (FormatVersion 2.0,
 * quoted fields, header and footer metadata, a byte order mark), zipped as one file. A goals report's
 * rows are what Microsoft has recorded of the offline conversions (sandbox/microsoft_ads/reporting.ts);
 * the others are ad performance (sandbox/adData.ts).
 */
import { strToU8, zipSync } from 'fflate';
import type { AdDataLevel, AdFacts } from '@/sandbox/adData';
import { adAccountOf, MICROSOFT_GOALS, type MicrosoftAccount } from '@/sandbox/microsoft_ads/accounts';
import type { SandboxStore } from '@/sandbox/store';

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

/** A goals report's rows: per account, goal and day of its time zone, what Microsoft has recorded by now (sandbox/reporting.ts). */
function goalLines(store: SandboxStore, report: SubmittedReport): string[] {
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
export function buildReport(store: SandboxStore, report: SubmittedReport): Uint8Array | null {
  const lines: string[] = [];
  if (report.goals) lines.push(...goalLines(store, report));
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
