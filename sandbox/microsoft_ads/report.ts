import { dayIn } from '@/lib/shared/connections/windows';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { strToU8, zipSync } from 'fflate';
import { type AdFacts } from '@/sandbox/adData';

import { json, readBody } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';
import type { AdApiFault } from '@/sandbox/microsoft_ads/faults';
import {
  csvField,
  headerDate,
  cellOf,
  SubmittedReport,
  DOWNLOAD_TTL_MS,
  reportDate,
  REPORT_TIME_ZONES,
  GOAL_MEASURES,
  MEASURE_COLUMNS,
  GOAL_REQUIRED,
  REPORT_TYPES,
  REPORT_ERRORS,
  ReportError,
} from '@/sandbox/microsoft_ads/reportFormat';
import { adAccountOf, MICROSOFT_ACCOUNTS, MICROSOFT_GOALS, type MicrosoftAccount } from '@/sandbox/microsoft_ads/accounts';

/**
 * The sandbox's Microsoft Advertising Reporting service: GenerateReport/Submit and Poll, and the zipped CSV
 * a poll's download URL serves (reportFormat.ts holds the report types, columns and cells).
 */
export function createReporting(store: SandboxStore, adApiFault: AdApiFault) {
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

  return { submitReport, pollReport, downloadReport };
}
