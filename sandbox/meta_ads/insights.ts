import { type AdDataLevel } from '@/sandbox/adData';

/**
 * The Insights API as the sandbox plays it. Figures come from sandbox/adData.ts (level `adset` is its
 * `ad_group`); metrics are strings as Meta sends them, and each day's purchases appear under several
 * action types at once (pixel, website and omni-channel purchase), so a client that sums `actions`
 * counts them three times. A sync request asking for more than SYNC_MAX_ROWS rows is refused as too
 * big (code 1, Meta's words); async report runs finish on their second poll.
 *
 * Throttling follows Meta's Business Use Case limits for `ads_insights`: every answer about an account
 * carries `x-business-use-case-usage` with the calls of the last hour as a percentage of
 * USAGE_CALLS_PER_HOUR (plus what `POST /__sandbox/meta/usage` set, which drains like the calls of a
 * rolling hour). At 100 % calls are refused with code 80000 / subcode 2446079 and Meta's message
 * (as seen in public traces), and estimated_time_to_regain_access (minutes) turns positive.
 */
export const INSIGHTS_LEVELS: Record<string, AdDataLevel> = { campaign: 'campaign', adset: 'ad_group', ad: 'ad' };
export const INSIGHTS_FIELDS = [
  'account_id',
  'account_name',
  'account_currency',
  'campaign_id',
  'campaign_name',
  'adset_id',
  'adset_name',
  'ad_id',
  'ad_name',
  'impressions',
  'clicks',
  'spend',
  'actions',
  'action_values',
  'date_start',
  'date_stop',
];
export const DEFAULT_INSIGHTS_FIELDS = ['impressions', 'spend'];
/** The purchase action types Meta reports for one pixel purchase (each with the same count). */
export const META_PURCHASE_ACTION_TYPES = ['offsite_conversion.fb_pixel_purchase', 'purchase', 'omni_purchase'];
export const SYNC_MAX_ROWS = 5000;
export const MAX_PAGE = 5000;
export const USAGE_WINDOW_MS = 3600_000;
export const USAGE_CALLS_PER_HOUR = 600;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface InsightsQuery {
  level: AdDataLevel;
  fields: string[];
  since: string;
  until: string;
  daily: boolean;
  limit: number;
}

export interface ReportRun {
  id: string;
  accountId: string;
  query: InsightsQuery;
  polls: number;
  createdAt: number;
}

export const isDate = (value: unknown): value is string =>
  typeof value === 'string' && DATE.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
export const money = (micros: number) => (micros / 1_000_000).toFixed(2);
export const cursorOf = (offset: number) => Buffer.from(`sandbox:${offset}`).toString('base64');
export function offsetOf(cursor: string): number | null {
  const match = /^sandbox:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return match ? Number(match[1]) : null;
}
