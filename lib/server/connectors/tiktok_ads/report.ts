import { tiktokGet } from '@/lib/server/connectors/tiktok_ads/api';
import { reportedNumber } from '@/lib/server/connectors/http';
import { chunksOf } from '@/lib/shared/connections/windows';
import type { Report, Session } from '@/lib/server/connectors/types';
import type { AdLevel, AdRow } from '@/lib/shared/connections/rows';

/**
 * Ad performance from TikTok's integrated reports (`GET /report/integrated/get/`, report_type BASIC): one row per
 * campaign, ad group or ad per day (dimension `stat_time_day`), in the advertiser's time zone. TikTok refuses a
 * daily range over 30 days, so a window is read in windows of at most 30 days, each page by page
 * (`page`, `page_size` ≤ 1,000, `page_info.total_page`).
 */

/** TikTok's longest range with the `stat_time_day` dimension, and its largest page. */
export const TIKTOK_MAX_DAYS = 30;
export const TIKTOK_MAX_PAGE_SIZE = 1000;
const MAX_PAGES = 10_000;

/** Per level: TikTok's data level, its id dimension and the attribute metrics that name the row's objects. */
export const TIKTOK_LEVELS: Record<AdLevel, { dataLevel: string; id: string; attributes: string[] }> = {
  campaign: { dataLevel: 'AUCTION_CAMPAIGN', id: 'campaign_id', attributes: ['campaign_name'] },
  ad_group: { dataLevel: 'AUCTION_ADGROUP', id: 'adgroup_id', attributes: ['campaign_id', 'campaign_name', 'adgroup_name'] },
  ad: {
    dataLevel: 'AUCTION_AD',
    id: 'ad_id',
    attributes: ['campaign_id', 'campaign_name', 'adgroup_id', 'adgroup_name', 'ad_name'],
  },
};
/** The figures read: spend, impressions, clicks, conversions (the ad's optimisation event) and purchase value. */
export const TIKTOK_METRICS = ['spend', 'impressions', 'clicks', 'conversion', 'total_complete_payment_rate'];

/** One row of TikTok's answer: ids in `dimensions`, everything else (names too) in `metrics`, as strings. */
export interface TikTokReportRow {
  dimensions: Record<string, string>;
  metrics: Record<string, string>;
}

/** The advertiser as its settings say: its days are days of its time zone. */
export interface TikTokAdvertiser {
  id: string;
  name: string;
  currency: string;
  timeZone: string;
}

/** One report row as our AdRow (ids finer than the level are null); `stat_time_day` is "YYYY-MM-DD 00:00:00". */
export function toAdRow(row: TikTokReportRow, advertiser: TikTokAdvertiser, level: AdLevel): AdRow {
  const { dimensions: d, metrics: m } = row;
  const at = (key: string) => d[key] ?? m[key] ?? null;
  return {
    date: String(d.stat_time_day ?? '').slice(0, 10),
    platform: 'tiktok_ads',
    account_id: advertiser.id,
    account_name: advertiser.name,
    currency: advertiser.currency,
    time_zone: advertiser.timeZone,
    campaign_id: at('campaign_id') ?? '',
    campaign_name: at('campaign_name') ?? '',
    ad_group_id: level === 'campaign' ? null : at('adgroup_id'),
    ad_group_name: level === 'campaign' ? null : at('adgroup_name'),
    ad_id: level === 'ad' ? at('ad_id') : null,
    ad_name: level === 'ad' ? at('ad_name') : null,
    impressions: reportedNumber(m.impressions),
    clicks: reportedNumber(m.clicks),
    spend: reportedNumber(m.spend),
    conversions: reportedNumber(m.conversion),
    conversion_value: reportedNumber(m.total_complete_payment_rate),
  };
}

/** The advertiser's name, currency and time zone (`GET /advertiser/info/`). */
export async function advertiserInfo(session: Session, id: string, onCall?: () => void): Promise<TikTokAdvertiser> {
  onCall?.();
  const { data } = await tiktokGet('/advertiser/info/', session.accessToken, {
    advertiser_ids: [id],
    fields: ['advertiser_id', 'name', 'currency', 'timezone', 'display_timezone'],
  });
  const info = ((data.list as Array<Record<string, unknown>> | undefined) ?? [])[0] ?? {};
  return {
    id,
    name: String(info.name ?? id),
    currency: String(info.currency ?? 'USD'),
    timeZone: String(info.display_timezone || info.timezone || 'UTC'),
  };
}

/** Windows of at most TIKTOK_MAX_DAYS days, each read page by page. */
export const tiktokReport: Report = async function* (session, request) {
  const advertiser = await advertiserInfo(session, request.account.id, request.onCall);
  const level = TIKTOK_LEVELS[request.level];
  for (const window of chunksOf({ from: request.from, to: request.to }, TIKTOK_MAX_DAYS)) {
    for (let page = 1; page <= MAX_PAGES; page++) {
      request.onCall?.();
      const { data } = await tiktokGet('/report/integrated/get/', session.accessToken, {
        advertiser_id: request.account.id,
        report_type: 'BASIC',
        data_level: level.dataLevel,
        dimensions: [level.id, 'stat_time_day'],
        metrics: [...level.attributes, ...TIKTOK_METRICS],
        start_date: window.from,
        end_date: window.to,
        page,
        page_size: TIKTOK_MAX_PAGE_SIZE,
      });
      const rows = (data.list as TikTokReportRow[] | undefined) ?? [];
      if (rows.length > 0) yield rows.map((row) => toAdRow(row, advertiser, request.level));
      const info = (data.page_info ?? {}) as { total_page?: number };
      if (page >= Number(info.total_page ?? 1)) break;
    }
  }
};
