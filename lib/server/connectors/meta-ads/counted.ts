import { metaActionType } from '@/lib/shared/conversions/reconciliation';
import { graphPages, metaGraphClient, type MetaGraphClient } from '@/lib/server/connectors/meta-ads/report';
import type { CountedRow, ReadCounted } from '@/lib/server/connectors/types';

/**
 * What Meta counted of the events sent to some pixels of one ad account (docs/PLATFORMS.md): per
 * pixel, `GET /{pixel}/stats?aggregation=event` (events received per hour and event name, summed per
 * UTC day), and for the account one `GET act_{id}/insights?fields=actions&time_increment=1` (the
 * attributed pixel actions per day, `offsite_conversion.fb_pixel_*`). Insights are per ad account, not
 * per pixel: two pixels of one account sending the same event name share its attributed count.
 * Both are Graph edges read page by page (a day per insights row, an hour per stats bucket: a 30-day
 * window is more than Graph's default page), through the report's client (meta/report.ts), which
 * counts each call and spaces them out by the account's usage.
 */

/** Every row of an edge, all its pages. */
async function allRows<T>(client: MetaGraphClient, path: string, params: Record<string, string>): Promise<T[]> {
  const rows: T[] = [];
  for await (const page of graphPages<T>(client, path, params)) rows.push(...page);
  return rows;
}

interface StatsBucket {
  start_time?: string;
  data?: Array<{ value?: string; count?: number }>;
}

/** Events received per event name and UTC day, from hourly stats buckets ("2026-11-14T13:00:00+0000"). */
export function receivedByDay(buckets: StatsBucket[]): Map<string, Map<string, number>> {
  const days = new Map<string, Map<string, number>>();
  for (const bucket of buckets) {
    const at = Date.parse((bucket.start_time ?? '').replace(/\+0000$/, 'Z'));
    if (Number.isNaN(at)) continue;
    const date = new Date(at).toISOString().slice(0, 10);
    for (const item of bucket.data ?? []) {
      const name = String(item.value ?? '');
      const counts = days.get(name) ?? new Map<string, number>();
      counts.set(date, (counts.get(date) ?? 0) + Number(item.count ?? 0));
      days.set(name, counts);
    }
  }
  return days;
}

export const metaCounted: ReadCounted = async (session, request) => {
  const { account, from, to } = request;
  const client = metaGraphClient(session, request);
  const insights = await allRows<{ date_start?: string; actions?: Array<{ action_type?: string; value?: string }> }>(
    client,
    `/act_${account.id}/insights`,
    {
      fields: 'actions',
      level: 'account',
      time_increment: '1',
      action_breakdowns: 'action_type',
      time_range: JSON.stringify({ since: from, until: to }),
    },
  );
  const attributed = new Map<string, Map<string, number>>();
  for (const row of insights) {
    for (const action of row.actions ?? []) {
      const days = attributed.get(String(action.action_type)) ?? new Map<string, number>();
      days.set(String(row.date_start), (days.get(String(row.date_start)) ?? 0) + Number(action.value ?? 0));
      attributed.set(String(action.action_type), days);
    }
  }
  const rows: CountedRow[] = [];
  const start = String(Date.parse(`${from}T00:00:00Z`) / 1000);
  const end = String(Date.parse(`${to}T00:00:00Z`) / 1000 + 86_400);
  // One stats read per pixel, however many conversions send to it.
  const statsOf = new Map<string, Map<string, Map<string, number>>>();
  for (const target of request.targets) {
    let received = statsOf.get(target.id);
    if (!received) {
      const buckets = await allRows<StatsBucket>(client, `/${target.id}/stats`, { aggregation: 'event', start_time: start, end_time: end });
      statsOf.set(target.id, (received = receivedByDay(buckets)));
    }
    const names = target.events.length ? target.events : [...received.keys()];
    const dates = new Set<string>();
    for (const name of names) for (const date of received.get(name)?.keys() ?? []) dates.add(date);
    const types = [...new Set(names.map(metaActionType))];
    for (const type of types) for (const date of attributed.get(type)?.keys() ?? []) dates.add(date);
    for (const date of dates) {
      rows.push({
        targetId: target.id,
        events: target.events.length ? target.events : null,
        date,
        received: names.reduce((sum, name) => sum + (received.get(name)?.get(date) ?? 0), 0),
        attributed: types.reduce((sum, type) => sum + (attributed.get(type)?.get(date) ?? 0), 0),
      });
    }
  }
  return rows;
};
