/**
 * The sandbox's integrated reports (`GET /report/integrated/get/`): report_type BASIC, one data level, its id
 * dimension with `stat_time_day`, metrics from the documented list (the page-event metrics count what the
 * advertiser's pixels received and could attribute: reporting.ts); a daily range over 30 days is refused, pages
 * of at most 1,000 rows (`page`, `page_size`, `page_info`), filters of at most 100 values. Figures are the
 * sandbox's synthetic ad data (sandbox/adData.ts) in the advertiser's time zone.
 */
import type { AdDataLevel, AdFacts } from '@/sandbox/adData';
import {
  isAdvertiser,
  listParam,
  noPermission,
  ok,
  parameterError,
  tiktokAnswer,
  TIKTOK_PIXELS,
  tiktokSandboxAccount,
  type TikTokHandler,
} from '@/sandbox/tiktok_ads/accounts';
import type { SandboxStore } from '@/sandbox/store';

/** Each data level's id dimension and our level (the advertiser's: its campaigns summed per day). */
const LEVELS: Record<string, { id: string; level: AdDataLevel | 'advertiser' }> = {
  AUCTION_ADVERTISER: { id: 'advertiser_id', level: 'advertiser' },
  AUCTION_CAMPAIGN: { id: 'campaign_id', level: 'campaign' },
  AUCTION_ADGROUP: { id: 'adgroup_id', level: 'ad_group' },
  AUCTION_AD: { id: 'ad_id', level: 'ad' },
};
const DAY_MS = 86_400_000;
/** TikTok: with `stat_time_day`, a request spans at most 30 days. */
export const MAX_DAILY_DAYS = 30;
export const MAX_PAGE_SIZE = 1000;
export const MAX_FILTER_VALUES = 100;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const money = (micros: number) => (micros / 1_000_000).toFixed(2);

/** Every metric the fake knows, from one day of one object. */
const METRICS: Record<string, (facts: AdFacts) => string> = {
  campaign_id: (facts) => facts.campaignId,
  campaign_name: (facts) => facts.campaignName,
  adgroup_id: (facts) => facts.adGroupId ?? '',
  adgroup_name: (facts) => facts.adGroupName ?? '',
  ad_name: (facts) => facts.adName ?? '',
  spend: (facts) => money(facts.spendMicros),
  impressions: (facts) => String(facts.impressions),
  clicks: (facts) => String(facts.clicks),
  conversion: (facts) => String(facts.conversions),
  total_complete_payment_rate: (facts) => money(facts.valueMicros),
};

/**
 * The page-event metrics (TikTok's "Page event metrics"), one per standard event: what the report attributed of
 * the ledger's events (reporting.ts). The sandbox attributes them to the advertiser, not to a campaign: at
 * finer levels they are 0.
 */
export const PAGE_EVENT_METRICS: Record<string, string[]> = {
  complete_payment: ['CompletePayment', 'Purchase'],
  on_web_order: ['PlaceAnOrder'],
  web_event_add_to_cart: ['AddToCart'],
  initiate_checkout: ['InitiateCheckout'],
  add_billing: ['AddPaymentInfo'],
  user_registration: ['CompleteRegistration'],
  form: ['SubmitForm', 'Lead'],
  online_consult: ['Contact'],
  button_click: ['ClickButton'],
  product_details_page_browse: ['ViewContent'],
  page_event_search: ['Search'],
  download_start: ['Download'],
  on_web_add_to_wishlist: ['AddToWishlist'],
  on_web_subscribe: ['Subscribe'],
};

/** A day without ad figures. */
const emptyDay = (date: string): AdFacts => ({
  date,
  campaignId: '',
  campaignName: '',
  adGroupId: null,
  adGroupName: null,
  adId: null,
  adName: null,
  impressions: 0,
  clicks: 0,
  spendMicros: 0,
  conversions: 0,
  valueMicros: 0,
});

/** How many values a filter names: a JSON array (as a string, as TikTok takes it, or as an array); 0 for anything else. */
function valuesOf(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value !== 'string') return 0;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.length : 0;
  } catch {
    return 0;
  }
}

/** Each object's days summed into one row. */
function summed(daily: AdFacts[], idOf: (facts: AdFacts) => string): AdFacts[] {
  const sums = new Map<string, AdFacts>();
  for (const facts of daily) {
    const sum = sums.get(idOf(facts));
    if (!sum) {
      sums.set(idOf(facts), { ...facts });
      continue;
    }
    sum.impressions += facts.impressions;
    sum.clicks += facts.clicks;
    sum.spendMicros += facts.spendMicros;
    sum.conversions += facts.conversions;
    sum.valueMicros += facts.valueMicros;
  }
  return [...sums.values()];
}

export function createReport(store: SandboxStore) {
  const integrated: TikTokHandler = (_req, res, url) => {
    const query = url.searchParams;
    const advertiserId = query.get('advertiser_id');
    if (!advertiserId) return parameterError(res, 'advertiser_id: Missing data for required field.');
    if (!isAdvertiser(advertiserId)) return noPermission(res, advertiserId);
    const failure = store.adData.failureOf(advertiserId);
    if (failure === 429) return tiktokAnswer(res, 40100, 'Too many requests. Please retry in some time.');
    if (failure !== null) return tiktokAnswer(res, 50000, 'System error. Please retry in some time.');
    if (query.get('report_type') !== 'BASIC')
      return parameterError(res, 'report_type: Must be one of BASIC, AUDIENCE, PLAYABLE_MATERIAL, CATALOG, BC, TT_SHOP.');
    const dataLevel = LEVELS[query.get('data_level') ?? ''];
    if (!dataLevel)
      return parameterError(res, 'data_level: Must be one of AUCTION_ADVERTISER, AUCTION_CAMPAIGN, AUCTION_ADGROUP, AUCTION_AD.');
    const dimensions = listParam(url, 'dimensions');
    if (!dimensions || dimensions.length === 0) return parameterError(res, 'dimensions: Missing data for required field.');
    if (dimensions.some((dimension) => dimension !== dataLevel.id && dimension !== 'stat_time_day'))
      return parameterError(res, `dimensions: Invalid dimension combination for data_level ${query.get('data_level')}.`);
    const metrics = listParam(url, 'metrics') ?? ['spend', 'impressions'];
    const unknownMetric = metrics.find((metric) => !METRICS[metric] && !PAGE_EVENT_METRICS[metric]);
    if (unknownMetric) return parameterError(res, `metrics: Invalid metric ${unknownMetric}.`);
    const from = query.get('start_date') ?? '';
    const to = query.get('end_date') ?? '';
    if (!DATE.test(from) || !DATE.test(to)) return parameterError(res, 'start_date, end_date: Must be dates in the format YYYY-MM-DD.');
    if (from > to) return parameterError(res, 'end_date: Must not be earlier than start_date.');
    const days = Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS) + 1;
    if (dimensions.includes('stat_time_day') && days > MAX_DAILY_DAYS)
      return parameterError(
        res,
        `The time span between start_date and end_date cannot exceed ${MAX_DAILY_DAYS} days when stat_time_day is a dimension.`,
      );
    const filters = query.get('filtering');
    if (filters !== null) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(filters);
      } catch {
        return parameterError(res, 'filtering: Not a valid JSON.');
      }
      const lists = (Array.isArray(parsed) ? parsed : []) as Array<{ filter_value?: unknown }>;
      if (lists.some((filter) => valuesOf(filter.filter_value) > MAX_FILTER_VALUES))
        return parameterError(res, `filtering: filter_value takes at most ${MAX_FILTER_VALUES} values.`);
    }
    const page = Number(query.get('page') ?? 1);
    const pageSize = Number(query.get('page_size') ?? 10);
    if (!Number.isInteger(page) || page < 1) return parameterError(res, 'page: Must be greater than or equal to 1.');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
      return parameterError(res, `page_size: Must be between 1 and ${MAX_PAGE_SIZE}.`);

    const account = tiktokSandboxAccount(advertiserId)!;
    const advertiserLevel = dataLevel.level === 'advertiser';
    const overRange = !dimensions.includes('stat_time_day');
    const campaigns = [
      ...store.adData.rowsOf('tiktok', account, dataLevel.level === 'advertiser' ? 'campaign' : dataLevel.level, from, to),
    ];
    // The advertiser's level: its campaigns summed per day (or over the range).
    const daily = advertiserLevel ? summed(campaigns, (facts) => facts.date) : campaigns;
    // What it attributed of the ledger's events, per event name and day of the advertiser (advertiser level only).
    const attributed = advertiserLevel
      ? store.reporting.tiktokAttributed(
          (TIKTOK_PIXELS[advertiserId] ?? []).map((pixel) => pixel.pixel_code),
          account.timeZone,
        )
      : new Map<string, Map<string, number>>();
    if (advertiserLevel) {
      // A day with attributed events and no ad figures is still a day of the report.
      const dates = new Set(daily.map((facts) => facts.date));
      for (const days of attributed.values())
        for (const date of days.keys()) {
          if (date < from || date > to || dates.has(date)) continue;
          dates.add(date);
          daily.push(emptyDay(date));
        }
      daily.sort((x, y) => x.date.localeCompare(y.date));
    }
    const idOfFacts = (facts: AdFacts) =>
      advertiserLevel
        ? advertiserId
        : dataLevel.level === 'campaign'
          ? facts.campaignId
          : dataLevel.level === 'ad_group'
            ? facts.adGroupId!
            : facts.adId!;
    // Without stat_time_day TikTok sums the range: one row per object.
    const all = overRange ? summed(daily, idOfFacts) : daily;
    const eventCount = (metric: string, date: string | null) =>
      PAGE_EVENT_METRICS[metric]!.reduce((sum, name) => {
        const days = attributed.get(name) ?? new Map<string, number>();
        if (date !== null) return sum + (days.get(date) ?? 0);
        return [...days].reduce((total, [day, count]) => (day >= from && day <= to ? total + count : total), sum);
      }, 0);
    const list = all.slice((page - 1) * pageSize, page * pageSize).map((facts) => ({
      dimensions: {
        [dataLevel.id]: idOfFacts(facts),
        ...(overRange ? {} : { stat_time_day: `${facts.date} 00:00:00` }),
      },
      metrics: Object.fromEntries(
        metrics.map((metric) => [
          metric,
          METRICS[metric] ? METRICS[metric](facts) : String(eventCount(metric, overRange ? null : facts.date)),
        ]),
      ),
    }));
    return ok(res, {
      list,
      page_info: { page, page_size: pageSize, total_number: all.length, total_page: Math.max(1, Math.ceil(all.length / pageSize)) },
    });
  };
  return { integrated };
}
