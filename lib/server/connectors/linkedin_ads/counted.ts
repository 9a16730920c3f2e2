import { accountUrn, encodedUrn, idOf, linkedin, restliQuery } from '@/lib/server/connectors/linkedin_ads/api';
import type { CountedRow, ReadCounted } from '@/lib/server/connectors/types';

/**
 * What LinkedIn attributed per conversion rule and day (docs/PLATFORMS.md, "Counted by the platform"): one
 * adAnalytics request per account, `q=analytics&pivot=CONVERSION`, DAILY, `externalWebsiteConversions` of every
 * rule at once (UTC days, as adAnalytics dates them). It counts what LinkedIn attributed to an ad click or view
 * of a matched member, from every source of the rule (Insight Tag included); LinkedIn reports nothing of what
 * it received, so `received` is unknown (null).
 */

const restliDate = (day: string) => `(year:${Number(day.slice(0, 4))},month:${Number(day.slice(5, 7))},day:${Number(day.slice(8, 10))})`;

export function countedQuery(accountId: string, from: string, to: string): string {
  return restliQuery({
    q: 'analytics',
    pivot: 'CONVERSION',
    timeGranularity: 'DAILY',
    dateRange: `(start:${restliDate(from)},end:${restliDate(to)})`,
    accounts: `List(${encodedUrn(accountUrn(accountId))})`,
    fields: 'dateRange,pivotValues,externalWebsiteConversions',
  });
}

export const linkedinCounted: ReadCounted = async (session, request) => {
  const body = await linkedin(session.accessToken, `adAnalytics?${countedQuery(request.account.id, request.from, request.to)}`, {
    onCall: request.onCall,
  });
  const wanted = new Set(request.targets.map((target) => target.id));
  const rows: CountedRow[] = [];
  for (const element of (body.elements as Array<Record<string, unknown>> | undefined) ?? []) {
    const ruleId = idOf(((element.pivotValues as string[] | undefined) ?? [])[0] ?? '');
    if (!wanted.has(ruleId)) continue;
    const start = (element.dateRange as { start?: { year: number; month: number; day: number } } | undefined)?.start;
    if (!start) continue;
    const date = `${start.year}-${String(start.month).padStart(2, '0')}-${String(start.day).padStart(2, '0')}`;
    rows.push({ targetId: ruleId, events: null, date, received: null, attributed: Number(element.externalWebsiteConversions ?? 0) || 0 });
  }
  return rows;
};
