import { metaActionType } from '@/lib/shared/conversions/reconciliation';
import { metaConfig } from '@/lib/server/connectors/meta/config';
import { graphError } from '@/lib/server/connectors/meta/errors';
import { requestJson } from '@/lib/server/connectors/http';
import type { CountedRow, ReadCounted } from '@/lib/server/connectors/types';

/**
 * What Meta counted of the events sent to some pixels of one ad account (docs/PLATFORMS.md): per
 * pixel, `GET /{pixel}/stats?aggregation=event` (events received per hour and event name, summed per
 * UTC day), and for the account one `GET act_{id}/insights?fields=actions&time_increment=1` (the
 * attributed pixel actions per day, `offsite_conversion.fb_pixel_*`). Insights are per ad account, not
 * per pixel: two pixels of one account sending the same event name share its attributed count.
 */

const TIMEOUT_MS = 30_000;

/** Reports take longer than a send: twice the usual timeout. */
async function graphGet(accessToken: string, path: string, params: Record<string, string>, onCall?: () => void) {
  const url = new URL(`${metaConfig().graphUrl}${path}`);
  url.search = new URLSearchParams(params).toString();
  onCall?.();
  const { status, body } = await requestJson(
    'meta_ads',
    url.toString(),
    { headers: { Authorization: `Bearer ${accessToken}` } },
    TIMEOUT_MS,
  );
  if (status !== 200) throw graphError(status, body);
  return body;
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
  const { account, from, to, onCall } = request;
  const insights = await graphGet(
    session.accessToken,
    `/act_${account.id}/insights`,
    {
      fields: 'actions',
      level: 'account',
      time_increment: '1',
      action_breakdowns: 'action_type',
      time_range: JSON.stringify({ since: from, until: to }),
    },
    onCall,
  );
  const attributed = new Map<string, Map<string, number>>();
  for (const row of (insights.data as Array<{ date_start?: string; actions?: Array<{ action_type?: string; value?: string }> }>) ?? []) {
    for (const action of row.actions ?? []) {
      const days = attributed.get(String(action.action_type)) ?? new Map<string, number>();
      days.set(String(row.date_start), (days.get(String(row.date_start)) ?? 0) + Number(action.value ?? 0));
      attributed.set(String(action.action_type), days);
    }
  }
  const rows: CountedRow[] = [];
  const start = String(Date.parse(`${from}T00:00:00Z`) / 1000);
  const end = String(Date.parse(`${to}T00:00:00Z`) / 1000 + 86_400);
  // One stats call per pixel, however many conversions send to it.
  const statsOf = new Map<string, Promise<Map<string, Map<string, number>>>>();
  for (const target of request.targets) {
    if (!statsOf.has(target.id))
      statsOf.set(
        target.id,
        graphGet(session.accessToken, `/${target.id}/stats`, { aggregation: 'event', start_time: start, end_time: end }, onCall).then(
          (stats) => receivedByDay((stats.data as StatsBucket[]) ?? []),
        ),
      );
    const received = await statsOf.get(target.id)!;
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
