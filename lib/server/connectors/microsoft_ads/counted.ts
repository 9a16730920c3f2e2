import { addDays, dayIn, daysInclusive } from '@/lib/shared/connections/windows';
import { microsoftConfig } from '@/lib/server/connectors/microsoft_ads/config';
import { parseCsv, reportingClient, dailyReportBody, type ReportOptions } from '@/lib/server/connectors/microsoft_ads/report';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { CountedRow, ReadCounted } from '@/lib/server/connectors/types';
import { ianaTimeZone } from '@/lib/server/connectors/microsoft_ads/timeZones';

/**
 * What Microsoft Advertising counted per goal and day (docs/PLATFORMS.md): one Goals and Funnels report
 * (`GoalsAndFunnelsReportRequest`, Daily, columns TimePeriod, AccountId, GoalId, Goal,
 * AllConversionsQualified) per account for every goal of it at once, submitted, polled and downloaded as
 * the performance reports are. Offline conversions are included; Microsoft shows them up to six hours
 * after upload. Its days are the account's days (ReportTimeZone is the account's zone): the read says
 * which zone, so our counts are summed into the same days.
 */

/**
 * AllConversions is deprecated: Microsoft answers 0 in it. AllConversionsQualified (a decimal: partly
 * attributed offline conversions) holds the goal's conversions, every goal whatever its ExcludeFromBidding.
 */
export const COUNTED_COLUMNS = ['TimePeriod', 'AccountId', 'GoalId', 'Goal', 'AllConversionsQualified'];

/** Without ReportTimeZone (an account zone we do not know) Microsoft reports Pacific days (ReportTime). */
const DEFAULT_REPORT_ZONE = 'America/Los_Angeles';

export function countedRequestBody(accountId: string, from: string, to: string, timeZone?: string | null) {
  return dailyReportBody(
    'GoalsAndFunnelsReportRequest',
    `SignalBridge goals ${accountId} ${from}..${to}`,
    COUNTED_COLUMNS,
    accountId,
    from,
    to,
    timeZone,
  );
}

/** The goals report's rows for the wanted goals (by id, or by name where the id column is empty). */
export function countedRowsOf(csv: string, targets: ReadonlyArray<{ id: string; name: string }>): CountedRow[] {
  let columns: Map<string, number> | null = null;
  const rows: CountedRow[] = [];
  for (const record of parseCsv(csv)) {
    if (!columns) {
      if (record.includes('TimePeriod') && record.includes('Goal')) columns = new Map(record.map((name, index) => [name.trim(), index]));
      continue;
    }
    if (record.length <= 1) continue;
    const cell = (name: string) => (columns!.has(name) ? (record[columns!.get(name)!] ?? '').trim() : '');
    const target = targets.find((candidate) => (cell('GoalId') ? candidate.id === cell('GoalId') : candidate.name === cell('Goal')));
    if (!target) continue;
    const count = Number(cell('AllConversionsQualified').replace(/,/g, '') || 0);
    if (!Number.isFinite(count))
      throw new PlatformError('microsoft_ads', 'retryable', 'Microsoft Advertising sent a goals report we could not read.');
    rows.push({ targetId: target.id, events: null, date: cell('TimePeriod'), received: null, attributed: count });
  }
  return rows;
}

export function createMicrosoftCounted(options: ReportOptions = {}): ReadCounted {
  const { call, reportCsv } = reportingClient(options);
  return async (session, request) => {
    const { account, onCall } = request;
    const found = await call(
      `${microsoftConfig().customerManagementUrl}/Account/Query`,
      session.accessToken,
      account,
      { AccountId: Number(account.id) },
      onCall,
    );
    const timeZone = ((found.Account ?? {}) as { TimeZone?: string }).TimeZone;
    const zone = ianaTimeZone(timeZone) ?? DEFAULT_REPORT_ZONE;
    // As many days as asked, ending on the account's own today: Microsoft refuses a later day.
    const to = dayIn(zone, request.now ?? new Date());
    const from = addDays(to, 1 - daysInclusive(request.from, request.to));
    const csv = await reportCsv(session.accessToken, account, countedRequestBody(account.id, from, to, timeZone), onCall);
    return { timeZone: zone, rows: csv === null ? [] : countedRowsOf(csv, request.targets) };
  };
}

export const microsoftCounted: ReadCounted = createMicrosoftCounted();
