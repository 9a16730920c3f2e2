import type { AdPlatform } from '@/lib/shared/integrations/platforms';

/** How finely a connection reads ad performance: one row per campaign, ad group or ad per day. */
export const AD_LEVELS = ['campaign', 'ad_group', 'ad'] as const;
export type AdLevel = (typeof AD_LEVELS)[number];

export const AD_LEVEL_LABELS: Record<AdLevel, string> = { campaign: 'Campaign', ad_group: 'Ad group / ad set', ad: 'Ad' };

/**
 * One row of ad performance, the same for every platform (documented in the README): one object at
 * the connection's level on one day of the account's own calendar. Money is a decimal in the
 * account's currency (Google's micros divided by a million, Meta's strings parsed).
 */
export interface AdRow {
  date: string;
  platform: AdPlatform;
  account_id: string;
  account_name: string;
  currency: string;
  time_zone: string;
  campaign_id: string;
  campaign_name: string;
  ad_group_id: string | null;
  ad_group_name: string | null;
  ad_id: string | null;
  ad_name: string | null;
  impressions: number;
  clicks: number;
  spend: number;
  conversions: number;
  conversion_value: number;
}

/** The columns of a written row, in order, with their BigQuery types (the destination table's schema). */
export const AD_ROW_COLUMNS = [
  ['date', 'DATE'],
  ['platform', 'STRING'],
  ['account_id', 'STRING'],
  ['account_name', 'STRING'],
  ['currency', 'STRING'],
  ['time_zone', 'STRING'],
  ['campaign_id', 'STRING'],
  ['campaign_name', 'STRING'],
  ['ad_group_id', 'STRING'],
  ['ad_group_name', 'STRING'],
  ['ad_id', 'STRING'],
  ['ad_name', 'STRING'],
  ['impressions', 'INT64'],
  ['clicks', 'INT64'],
  ['spend', 'NUMERIC'],
  ['conversions', 'FLOAT64'],
  ['conversion_value', 'NUMERIC'],
] as const satisfies ReadonlyArray<readonly [keyof AdRow, string]>;

/** What makes a row unique: the BigQuery MERGE key and the source of Mixpanel's $insert_id. */
export const AD_ROW_KEY = ['platform', 'account_id', 'campaign_id', 'ad_group_id', 'ad_id', 'date'] as const satisfies ReadonlyArray<
  keyof AdRow
>;

export const adRowKey = (row: AdRow) => AD_ROW_KEY.map((column) => row[column] ?? '').join('/');

/** Micros (Google's cost_micros: millionths of the currency) to a decimal; an integer over 1e6 prints as its shortest decimal. */
export const fromMicros = (micros: number | string) => Number(micros) / 1_000_000;
