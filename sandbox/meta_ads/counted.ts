/**
 * What Meta reports it counted of the Conversions API events (docs/SANDBOX.md, "Counted by the
 * platform"): the pixel's stats per hour (`GET /{pixel}/stats`) and the account's attributed pixel
 * actions per day (`GET act_{id}/insights?fields=actions`), from the ledger as
 * sandbox/meta_ads/reporting.ts counts it, throttled like the insights.
 */
import type { ServerResponse } from 'node:http';
import { metaActionType } from '@/lib/shared/conversions/reconciliation';
import { metaAdsError, META_AD_ACCOUNTS, META_PIXELS, ownerOfPixel, readsAds, unreachable } from '@/sandbox/meta_ads/accounts';
import type { createInsights } from '@/sandbox/meta_ads/report';
import type { AccessToken, SandboxStore } from '@/sandbox/store';

/** A Graph time parameter: unix seconds or an ISO date-time. */
const timeOf = (value: string | null, fallback: number) => {
  if (!value) return fallback;
  return /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value);
};

/** The pixel stats and attributed actions on the shared store, answered through the insights' paging and throttling. */
export function createCounted(store: SandboxStore, insights: Pick<ReturnType<typeof createInsights>, 'refused' | 'answerList'>) {
  /**
   * The pixel's events its stats count, by the `event_source` filter (Ads Pixel Stats: "Specify WEB_ONLY
   * or SERVER_ONLY to filter the pixel events and stats"): without it, the browser pixel's fires and the
   * Conversions API's events together (sandbox/reporting.ts: `browserFires`, and `missingShare` of ours
   * never arrives); null for any other value.
   */
  function statsEvents(pixelId: string, source: string | null): Array<{ eventName: string; receivedAt: number }> | null {
    if (source !== null && source !== 'SERVER_ONLY' && source !== 'WEB_ONLY') return null;
    const server = store.reporting
      .metaReceived(pixelId)
      .map((entry) => ({ eventName: String(entry.event.event_name ?? ''), receivedAt: entry.receivedAt }));
    const browser = store.reporting.metaBrowserFires(pixelId);
    if (source === 'SERVER_ONLY') return server;
    if (source === 'WEB_ONLY') return browser;
    return [...server, ...browser];
  }

  /**
   * `GET /{pixel}/stats?aggregation=event&event_source=…&start_time=…&end_time=…` (Ads Pixel Stats): the
   * pixel's events per hour and event name (see statsEvents for which), an hour a row, paged as every
   * Graph edge (25 by default). The login needs ads_read (#200), and the pixel must be one of its ad
   * accounts' (#100/33); calls count against that account's usage like its insights.
   */
  function pixelStats(res: ServerResponse, url: URL, caller: AccessToken, pixelId: string) {
    if (!readsAds(caller)) return metaAdsError(res, 403, 200, '(#200) Requires ads_read permission');
    const accountId = ownerOfPixel(pixelId);
    if (!accountId) return unreachable(res, pixelId);
    if (insights.refused(res, accountId)) return;
    const aggregation = url.searchParams.get('aggregation') ?? 'event';
    if (aggregation !== 'event') return metaAdsError(res, 400, 100, '(#100) The sandbox serves aggregation=event only.');
    const events = statsEvents(pixelId, url.searchParams.get('event_source'));
    if (!events) return metaAdsError(res, 400, 100, '(#100) Param event_source must be one of {WEB_ONLY, SERVER_ONLY}');
    // Without a window: the day up to the request's time, by the reports' clock.
    const now = store.reporting.clock.now();
    const start = timeOf(url.searchParams.get('start_time'), now - 24 * 3_600_000);
    const end = timeOf(url.searchParams.get('end_time'), now);
    if (Number.isNaN(start) || Number.isNaN(end)) return metaAdsError(res, 400, 100, '(#100) start_time and end_time must be times.');
    const buckets = new Map<string, Map<string, number>>();
    for (const { eventName, receivedAt } of events) {
      if (receivedAt < start || receivedAt >= end) continue;
      const hour = `${new Date(receivedAt).toISOString().slice(0, 13)}:00:00+0000`;
      const counts = buckets.get(hour) ?? new Map<string, number>();
      counts.set(eventName, (counts.get(eventName) ?? 0) + 1);
      buckets.set(hour, counts);
    }
    const data = [...buckets.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([hour, counts]) => ({
        start_time: hour,
        aggregation: 'event',
        data: [...counts.entries()].map(([value, count]) => ({ value, count })),
      }));
    return insights.answerList(res, accountId, data, url);
  }

  /**
   * `GET act_{id}/insights?fields=actions&level=account&time_increment=1&time_range=…`: the account's
   * attributed pixel actions per day of its `timezone_name` (sandbox/reporting.ts: they come `attributionLagHours` late), a day
   * a row, paged at 25 by default like the other insights; the same failure switch and throttling.
   */
  function attributedActions(res: ServerResponse, url: URL, accountId: string) {
    const pixels = META_PIXELS[accountId];
    const account = META_AD_ACCOUNTS.find((candidate) => candidate.account_id === accountId);
    if (!pixels || !account) return unreachable(res, `act_${accountId}`);
    if (insights.refused(res, accountId)) return;
    let range: { since?: string; until?: string };
    try {
      range = JSON.parse(url.searchParams.get('time_range') ?? '{}') as typeof range;
    } catch {
      return metaAdsError(res, 400, 100, '(#100) time_range must be a JSON object with since and until.');
    }
    if (!range.since || !range.until) return metaAdsError(res, 400, 100, '(#100) time_range must be a JSON object with since and until.');
    const days = new Map<string, Map<string, number>>();
    // Insights date by the ad account's day (its timezone_name), not the UTC day.
    for (const [eventName, counts] of store.reporting.metaAttributed(
      pixels.map((pixel) => pixel.id),
      account.timezone_name,
    )) {
      for (const [date, count] of counts) {
        if (date < range.since || date > range.until) continue;
        const actions = days.get(date) ?? new Map<string, number>();
        const type = metaActionType(eventName);
        actions.set(type, (actions.get(type) ?? 0) + count);
        days.set(date, actions);
      }
    }
    const data = [...days.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([date, actions]) => ({
        account_id: accountId,
        date_start: date,
        date_stop: date,
        actions: [...actions.entries()].map(([action_type, value]) => ({ action_type, value: String(value) })),
      }));
    return insights.answerList(res, accountId, data, url);
  }

  return { pixelStats, attributedActions };
}
