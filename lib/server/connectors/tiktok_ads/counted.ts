import { tiktokGet } from '@/lib/server/connectors/tiktok_ads/api';
import { advertiserInfo, TIKTOK_MAX_DAYS, TIKTOK_MAX_PAGE_SIZE } from '@/lib/server/connectors/tiktok_ads/report';
import { addDays, chunksOf, dayIn, daysInclusive, isKnownTimeZone } from '@/lib/shared/connections/windows';
import type { CountedRow, ReadCounted } from '@/lib/server/connectors/types';

/**
 * What TikTok attributed of the events sent to some pixels of one advertiser, per day (docs/PLATFORMS.md,
 * "Counted by the platform"): one integrated report (`GET /report/integrated/get/`, report_type BASIC,
 * data_level AUCTION_ADVERTISER, dimensions `advertiser_id` + `stat_time_day`) with the page-event metric of each
 * standard event the targets send (CompletePayment → `complete_payment` …), in windows of at most 30 days. Its
 * days are the advertiser's (its time zone, read first), so the read asks for as many days as the request,
 * ending on the advertiser's own today, and names the zone (CountedRead).
 *
 * The report counts what TikTok attributed to an ad across the whole advertiser, from every source of that event
 * (its browser pixel and the Events API together), not per pixel; it reports nothing of what a pixel received,
 * so `received` is unknown (null). An event name without a page-event metric (a custom event) has no figure.
 */

/** TikTok's page-event metric of each standard web event ("Page event metrics" of the report's metrics list). */
export const TIKTOK_EVENT_METRICS: Record<string, string> = {
  CompletePayment: 'complete_payment',
  // TikTok's current standard list names the payment "Purchase" (CompletePayment before it): the same metric.
  Purchase: 'complete_payment',
  PlaceAnOrder: 'on_web_order',
  AddToCart: 'web_event_add_to_cart',
  InitiateCheckout: 'initiate_checkout',
  AddPaymentInfo: 'add_billing',
  CompleteRegistration: 'user_registration',
  SubmitForm: 'form',
  // The current list's form submission ("Lead"; SubmitForm before it).
  Lead: 'form',
  Contact: 'online_consult',
  ClickButton: 'button_click',
  ViewContent: 'product_details_page_browse',
  Search: 'page_event_search',
  Download: 'download_start',
  AddToWishlist: 'on_web_add_to_wishlist',
  Subscribe: 'on_web_subscribe',
};

/** The metric of an event name (matched without case, as deliveries filter); null for a name TikTok reports no metric of. */
export const tiktokEventMetric = (name: string): string | null => {
  const found = Object.keys(TIKTOK_EVENT_METRICS).find((known) => known.toLowerCase() === name.toLowerCase());
  return found ? TIKTOK_EVENT_METRICS[found]! : null;
};

const MAX_PAGES = 100;

export const tiktokCounted: ReadCounted = async (session, request) => {
  const advertiser = await advertiserInfo(session, request.account.id, request.onCall);
  const timeZone = isKnownTimeZone(advertiser.timeZone) ? advertiser.timeZone : 'UTC';
  const metricsOf = new Map(
    request.targets.map((target) => [
      target,
      [...new Set(target.events.map(tiktokEventMetric).filter((metric): metric is string => metric !== null))],
    ]),
  );
  const metrics = [...new Set([...metricsOf.values()].flat())].sort();
  // No target sends an event TikTok reports by name: nothing to ask.
  if (metrics.length === 0) return { timeZone, rows: [] };
  // As many days as asked, ending on the advertiser's own today: the days its report is dated in.
  const to = dayIn(timeZone, request.now ?? new Date());
  const from = addDays(to, 1 - daysInclusive(request.from, request.to));
  const byDay = new Map<string, Record<string, string>>();
  for (const window of chunksOf({ from, to }, TIKTOK_MAX_DAYS)) {
    for (let page = 1; page <= MAX_PAGES; page++) {
      request.onCall?.();
      const { data } = await tiktokGet('/report/integrated/get/', session.accessToken, {
        advertiser_id: request.account.id,
        report_type: 'BASIC',
        data_level: 'AUCTION_ADVERTISER',
        dimensions: ['advertiser_id', 'stat_time_day'],
        metrics,
        start_date: window.from,
        end_date: window.to,
        page,
        page_size: TIKTOK_MAX_PAGE_SIZE,
      });
      for (const row of (data.list as Array<{ dimensions?: Record<string, string>; metrics?: Record<string, string> }> | undefined) ?? []) {
        const date = String(row.dimensions?.stat_time_day ?? '').slice(0, 10);
        if (date) byDay.set(date, row.metrics ?? {});
      }
      const info = (data.page_info ?? {}) as { total_page?: number };
      if (page >= Number(info.total_page ?? 1)) break;
    }
  }
  const rows: CountedRow[] = [];
  for (const [target, targetMetrics] of metricsOf) {
    if (targetMetrics.length === 0) continue;
    for (const [date, values] of [...byDay].sort(([a], [b]) => a.localeCompare(b))) {
      const attributed = targetMetrics.reduce((sum, metric) => sum + (Number(values[metric] ?? 0) || 0), 0);
      // A day TikTok lists with none of these events is no figure of them.
      if (attributed === 0) continue;
      rows.push({ targetId: target.id, events: target.events, date, received: null, attributed });
    }
  }
  return { timeZone, rows };
};
