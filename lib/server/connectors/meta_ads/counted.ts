import { addDays, dayIn, daysInclusive, instantOf, isKnownTimeZone } from '@/lib/shared/connections/windows';
import { metaActionType } from '@/lib/shared/conversions/reconciliation';
import { graphPages, metaGraphClient, type MetaGraphClient } from '@/lib/server/connectors/meta_ads/report';
import type { CountedRow, ReadCounted } from '@/lib/server/connectors/types';

/**
 * What Meta counted of the events sent to some pixels of one ad account (docs/PLATFORMS.md): per
 * pixel, `GET /{pixel}/stats?aggregation=event&event_source=SERVER_ONLY` (events received per hour and
 * event name, summed per day of the account; server events only, since the site's own browser pixel fires beside
 * ours and, counted in, would let "received" exceed what we sent and hide a loss), and for the account one `GET act_{id}/insights?fields=actions&time_increment=1` (the
 * attributed pixel actions per day, `offsite_conversion.fb_pixel_*`). Only the event names each target asks
 * for (matched without case): the stats still count every server sender of those names, and insights are
 * per ad account, not per pixel (two pixels sending the same event name share its attributed count), so
 * both are wider than one conversion and the page says so.
 * Both are Graph edges read page by page (a day per insights row, an hour per stats bucket: a 30-day
 * window is more than Graph's default page), through the report's client (meta/report.ts), which
 * counts each call and spaces them out by the account's usage.
 *
 * Days are the ad account's: insights report days of its `timezone_name` (read first, `GET act_{id}`), so the
 * read asks for as many days as the request, ending on the account's own today at `request.now`, sums the
 * hourly stats (unix-time buckets) into the same days, and names the zone (CountedRead).
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

/**
 * Events received per event name and day of `timeZone` (the account's), from hourly stats buckets
 * ("2026-11-14T13:00:00+0000": an hour falls whole on one day of a zone a whole number of hours off UTC).
 */
export function receivedByDay(buckets: StatsBucket[], timeZone = 'UTC'): Map<string, Map<string, number>> {
  const days = new Map<string, Map<string, number>>();
  for (const bucket of buckets) {
    // Graph writes the offset without a colon (+0000), which Date.parse does not read.
    const at = Date.parse((bucket.start_time ?? '').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
    if (Number.isNaN(at)) continue;
    const date = dayIn(timeZone, at);
    for (const item of bucket.data ?? []) {
      const name = String(item.value ?? '');
      const counts = days.get(name) ?? new Map<string, number>();
      counts.set(date, (counts.get(date) ?? 0) + Number(item.count ?? 0));
      days.set(name, counts);
    }
  }
  return days;
}

/** The ad account's time zone (IANA, `timezone_name`); UTC if Meta names none we know. */
async function accountZone(client: MetaGraphClient, accountId: string): Promise<string> {
  const settings = await client.ok('GET', `/act_${accountId}`, { fields: 'timezone_name' });
  return isKnownTimeZone(settings.timezone_name) ? settings.timezone_name : 'UTC';
}

export const metaCounted: ReadCounted = async (session, request) => {
  const { account } = request;
  const client = metaGraphClient(session, request);
  const timeZone = await accountZone(client, account.id);
  // No target names an event: none of Meta's figures could be told from other senders'. Nothing more to ask.
  if (request.targets.every((target) => target.events.length === 0)) return { timeZone, rows: [] };
  // As many days as asked, ending on the account's own today: the days its insights are dated in.
  const to = dayIn(timeZone, request.now ?? new Date());
  const from = addDays(to, 1 - daysInclusive(request.from, request.to));
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
  // The stats' window in unix time: from the account's first midnight to the end of its today.
  const start = String(instantOf(from, '00:00', timeZone) / 1000);
  const end = String(instantOf(addDays(to, 1), '00:00', timeZone) / 1000);
  // One stats read per pixel, however many conversions send to it.
  const statsOf = new Map<string, Map<string, Map<string, number>>>();
  for (const target of request.targets) {
    // No event names: nothing of this conversion's can be told from the pixel's other senders.
    if (target.events.length === 0) continue;
    let received = statsOf.get(target.id);
    if (!received) {
      const buckets = await allRows<StatsBucket>(client, `/${target.id}/stats`, {
        aggregation: 'event',
        event_source: 'SERVER_ONLY',
        start_time: start,
        end_time: end,
      });
      statsOf.set(target.id, (received = receivedByDay(buckets, timeZone)));
    }
    // The names the stats hold for the asked ones, without case (as deliveries filter); the action types of those.
    const asked = new Set(target.events.map((name) => name.toLowerCase()));
    const names = [...received.keys()].filter((name) => asked.has(name.toLowerCase()));
    const dates = new Set<string>();
    for (const name of names) for (const date of received.get(name)?.keys() ?? []) dates.add(date);
    // Action types by the names as sent (the stats'); before any stat, as asked.
    const types = [...new Set((names.length ? names : target.events).map(metaActionType))];
    for (const type of types) for (const date of attributed.get(type)?.keys() ?? []) dates.add(date);
    for (const date of dates) {
      rows.push({
        targetId: target.id,
        events: target.events,
        date,
        received: names.reduce((sum, name) => sum + (received.get(name)?.get(date) ?? 0), 0),
        attributed: types.reduce((sum, type) => sum + (attributed.get(type)?.get(date) ?? 0), 0),
      });
    }
  }
  return { timeZone, rows };
};
