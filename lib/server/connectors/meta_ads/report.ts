import { metaConfig } from '@/lib/server/connectors/meta_ads/config';
import { metaAdsError } from '@/lib/server/connectors/meta_ads/errors';
import { PlatformError } from '@/lib/server/connectors/errors';
import { reportedNumber } from '@/lib/server/connectors/http';
import type { Report, Session } from '@/lib/server/connectors/types';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import type { AdLevel, AdRow } from '@/lib/shared/connections/rows';
import { errorFields, log } from '@/lib/server/log';

/**
 * Ad performance from Meta's Insights API (`act_{id}/insights`, one row per object per day with
 * time_increment=1). Short windows are read page by page (cursor `after`); windows longer than 31
 * days, or ones Meta calls too big, go through an async report run (start, poll, page its insights).
 * Meta budgets calls per ad account (`x-business-use-case-usage`): above 75 % we slow down, above
 * 95 % we stop with a retry time rather than push the account into a block.
 */

/** Waiting is injectable, so tests never sleep for real; pageSize is Meta's `limit`. */
export const metaReportOptions = {
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
  pageSize: 500,
};

const LEVELS: Record<AdLevel, 'campaign' | 'adset' | 'ad'> = { campaign: 'campaign', ad_group: 'adset', ad: 'ad' };
const FIELDS: Record<AdLevel, string[]> = {
  campaign: ['campaign_id', 'campaign_name'],
  ad_group: ['campaign_id', 'campaign_name', 'adset_id', 'adset_name'],
  ad: ['campaign_id', 'campaign_name', 'adset_id', 'adset_name', 'ad_id', 'ad_name'],
};
const METRICS = ['impressions', 'clicks', 'spend', 'actions', 'action_values'];
/** Longer windows go through an async report run (Meta's advice for long ranges). */
const SYNC_MAX_DAYS = 31;
/**
 * The one action type counted as a conversion, in order of preference: Meta lists the same purchase
 * under each of these (and per attribution window when asked), so summing them double counts.
 */
export const PURCHASE_ACTION_TYPES = ['omni_purchase', 'purchase', 'offsite_conversion.fb_pixel_purchase'];

/** Usage above which calls are spaced out, and above which we stop before Meta blocks the account. */
const SLOW_DOWN_PERCENT = 75;
const STOP_PERCENT = 95;
/** The longest proportional pause (at 95 %) between two calls. */
const MAX_PAUSE_MS = 20_000;
/** A wait Meta announces that is short enough to sit out inside the run. */
const SHORT_WAIT_MS = 30_000;
/** Meta's BUC window: usage drains over a rolling hour. */
const USAGE_WINDOW_MS = 3_600_000;
/** When Meta throttles without saying for how long. */
const DEFAULT_RETRY_MS = 5 * 60_000;
const POLL_DELAYS_MS = [500, 1000, 2000, 4000, 5000];
const MAX_POLL_MS = 10 * 60_000;
const MAX_PAGES = 10_000;
const TIMEOUT_MS = 60_000;

// Meta's throttling codes: 4 app, 17 user, 613 calls, 80000–80014 Business Use Case limits (80000 ads_insights).

interface ActionStat {
  action_type: string;
  value: string;
}

/** One row of Meta's insights answer: every metric is a string. */
export interface InsightsRow {
  date_start: string;
  date_stop?: string;
  campaign_id?: string;
  campaign_name?: string;
  adset_id?: string;
  adset_name?: string;
  ad_id?: string;
  ad_name?: string;
  impressions?: string;
  clicks?: string;
  spend?: string;
  actions?: ActionStat[];
  action_values?: ActionStat[];
}

/** The account as its own settings say: its days are days of timezone_name. */
export interface MetaAccountInfo {
  id: string;
  name: string;
  currency: string;
  timeZone: string;
}

/** The action type whose count and value are the row's conversions: the first of PURCHASE_ACTION_TYPES Meta reported. */
export function purchaseActionType(row: Pick<InsightsRow, 'actions' | 'action_values'>): string | null {
  const reported = new Set([...(row.actions ?? []), ...(row.action_values ?? [])].map((stat) => stat.action_type));
  return PURCHASE_ACTION_TYPES.find((type) => reported.has(type)) ?? null;
}

/** Conversions and their value from ONE action type, the same for both; never a sum across types. */
export function conversionsOf(row: Pick<InsightsRow, 'actions' | 'action_values'>): { conversions: number; conversion_value: number } {
  const type = purchaseActionType(row);
  if (!type) return { conversions: 0, conversion_value: 0 };
  const valueOf = (stats: ActionStat[] | undefined) => reportedNumber(stats?.find((stat) => stat.action_type === type)?.value);
  return { conversions: valueOf(row.actions), conversion_value: valueOf(row.action_values) };
}

/** One insights row as our AdRow (ids finer than the level are null). */
export function toAdRow(row: InsightsRow, account: MetaAccountInfo, level: AdLevel): AdRow {
  return {
    date: row.date_start,
    platform: 'meta_ads',
    account_id: account.id,
    account_name: account.name,
    currency: account.currency,
    time_zone: account.timeZone,
    campaign_id: row.campaign_id ?? '',
    campaign_name: row.campaign_name ?? '',
    ad_group_id: level === 'campaign' ? null : (row.adset_id ?? null),
    ad_group_name: level === 'campaign' ? null : (row.adset_name ?? null),
    ad_id: level === 'ad' ? (row.ad_id ?? null) : null,
    ad_name: level === 'ad' ? (row.ad_name ?? null) : null,
    impressions: reportedNumber(row.impressions),
    clicks: reportedNumber(row.clicks),
    spend: reportedNumber(row.spend),
    ...conversionsOf(row),
  };
}

/** What `x-business-use-case-usage` says about one account: the highest of its percentages, and Meta's minutes to regain access. */
export interface MetaUsage {
  percent: number;
  regainMinutes: number;
}

export function parseUsage(header: string | null, accountId: string): MetaUsage | null {
  if (!header) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const byId = parsed as Record<string, unknown>;
  // Keyed by the ad account (or its business); when our account is not named, every entry counts.
  const ours = byId[accountId] ?? byId[`act_${accountId}`];
  const lists = ours !== undefined ? [ours] : Object.values(byId);
  const entries = lists.flatMap((list) => (Array.isArray(list) ? (list as Array<Record<string, unknown>>) : []));
  if (entries.length === 0) return null;
  const max = (key: string) => Math.max(0, ...entries.map((entry) => Number(entry[key])).filter(Number.isFinite));
  return {
    percent: Math.max(max('call_count'), max('total_cputime'), max('total_time')),
    regainMinutes: max('estimated_time_to_regain_access'),
  };
}

/** Before the next call: go now, wait `waitMs`, or stop until `retryAt`. */
export type Throttle = { waitMs: number } | { retryAt: Date };

/**
 * The wait a usage calls for. Throttled (Meta gives minutes to regain access): sit out a short wait,
 * otherwise stop until then. Above 95 % and not yet throttled, Meta gives no time (its estimate is 0
 * until the block), and one more call may cause the block: stop until the rolling hour has drained
 * to 75 %. Between 75 % and 95 %: a pause proportional to how close the account is.
 */
export function throttleOf(usage: MetaUsage | null, now: number): Throttle {
  if (!usage) return { waitMs: 0 };
  if (usage.regainMinutes > 0) {
    const regainMs = usage.regainMinutes * 60_000;
    return regainMs <= SHORT_WAIT_MS ? { waitMs: regainMs } : { retryAt: new Date(now + regainMs) };
  }
  if (usage.percent > STOP_PERCENT) {
    return { retryAt: new Date(now + Math.max(60_000, ((usage.percent - SLOW_DOWN_PERCENT) / 100) * USAGE_WINDOW_MS)) };
  }
  if (usage.percent > SLOW_DOWN_PERCENT)
    return { waitMs: Math.round(((usage.percent - SLOW_DOWN_PERCENT) / (STOP_PERCENT - SLOW_DOWN_PERCENT)) * MAX_PAUSE_MS) };
  return { waitMs: 0 };
}

interface GraphResponse {
  status: number;
  body: Record<string, unknown>;
  usage: MetaUsage | null;
}

interface GraphErrorFields {
  code?: number;
  error_subcode?: number;
  message?: string;
}

const errorOf = (body: Record<string, unknown>) => (body.error ?? {}) as GraphErrorFields;

/** Meta saying the request asks for too much at once (code 1 "reduce the amount of data", or an insights timeout). */
export function isTooBig(response: Pick<GraphResponse, 'body'>): boolean {
  const error = errorOf(response.body);
  return (
    (error.code === 1 && /reduce the amount of data/i.test(error.message ?? '')) ||
    error.error_subcode === 1504018 ||
    error.error_subcode === 1504038
  );
}

/** A refused report call, classified by Meta's table; a throttled one comes back when Meta's usage header says it regains (else in a few minutes). */
export function reportError(response: GraphResponse, now: number): PlatformError {
  const regainMs = (response.usage?.regainMinutes ?? 0) * 60_000;
  return metaAdsError(response.status, response.body, new Date(now + (regainMs || DEFAULT_RETRY_MS)));
}

/**
 * The Graph calls of one read of an account (a report, or what it counted: meta/counted.ts): each
 * counted, spaced out by the account's usage, and refused as PlatformErrors.
 */
export function metaGraphClient(session: Session, request: { account: Pick<AdAccount, 'id'>; onCall?: () => void }) {
  const now = () => metaReportOptions.now();
  let next: Throttle = { waitMs: 0 };

  async function call(method: 'GET' | 'POST', path: string, params: Record<string, string>): Promise<GraphResponse> {
    if ('retryAt' in next)
      throw new PlatformError(
        'meta_ads',
        'rate_limited',
        'This ad account is close to Meta’s rate limit. The report will be read again later.',
        next.retryAt,
      );
    if (next.waitMs > 0) await metaReportOptions.sleep(next.waitMs);
    const url = new URL(`${metaConfig().graphUrl}${path}`);
    const init: RequestInit = {
      method,
      headers: { Authorization: `Bearer ${session.accessToken}` },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    };
    if (method === 'GET') url.search = new URLSearchParams(params).toString();
    else {
      init.headers = { ...init.headers, 'Content-Type': 'application/x-www-form-urlencoded' };
      init.body = new URLSearchParams(params).toString();
    }
    request.onCall?.();
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      log.warn({ component: 'platforms', platform: 'meta_ads', origin: url.origin, ...errorFields(error) }, 'Meta unreachable');
      throw new PlatformError('meta_ads', 'retryable', 'Meta could not be reached. Try again in a minute.');
    }
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { raw: text.slice(0, 200) };
    }
    const usage = parseUsage(response.headers.get('x-business-use-case-usage'), request.account.id);
    next = throttleOf(usage, now());
    return { status: response.status, body, usage };
  }

  async function ok(method: 'GET' | 'POST', path: string, params: Record<string, string>) {
    const response = await call(method, path, params);
    if (response.status !== 200) throw reportError(response, now());
    return response.body;
  }

  return { call, ok };
}

export type MetaGraphClient = ReturnType<typeof metaGraphClient>;
type Client = MetaGraphClient;

const pagingAfter = (body: Record<string, unknown>) => {
  const paging = body.paging as { next?: string; cursors?: { after?: string } } | undefined;
  return paging?.next ? paging.cursors?.after : undefined;
};

/**
 * Every page of a Graph edge (`limit` = pageSize rows each, cursor `after` while `paging.next` says more
 * follow; Graph's own default is 25). With fallBackOnTooBig, a first page Meta calls too big returns
 * 'too_big' instead of throwing. A page repeated or pages without end throw: a read with rows missing
 * would be taken as the whole answer.
 */
export async function* graphPages<T>(
  client: Client,
  path: string,
  params: Record<string, string>,
  fallBackOnTooBig = false,
): AsyncGenerator<T[], 'too_big' | undefined> {
  const limit = String(metaReportOptions.pageSize);
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const response = await client.call('GET', path, { ...params, limit, ...(after ? { after } : {}) });
    if (response.status !== 200) {
      // Only before any row was yielded can the whole window start over as an async run.
      if (fallBackOnTooBig && page === 0 && isTooBig(response)) return 'too_big';
      throw reportError(response, metaReportOptions.now());
    }
    const rows = (response.body.data as T[] | undefined) ?? [];
    if (rows.length > 0) yield rows;
    const nextAfter = pagingAfter(response.body);
    if (!nextAfter) return undefined;
    if (nextAfter === after) throw new PlatformError('meta_ads', 'retryable', 'Meta repeated a page of the report. Trying again.');
    after = nextAfter;
  }
  throw new PlatformError('meta_ads', 'retryable', 'Meta kept answering more pages than any report has. Try again later.');
}

/** An async report run: start it, poll with a short backoff until Meta completes it, and return its id. */
async function runReport(client: Client, accountId: string, params: Record<string, string>): Promise<string> {
  const started = await client.ok('POST', `/act_${accountId}/insights`, params);
  const runId = String(started.report_run_id ?? '');
  if (!runId) throw new PlatformError('meta_ads', 'retryable', 'Meta did not start the report. Try again in a minute.');
  const begun = metaReportOptions.now();
  for (let poll = 0; ; poll++) {
    await metaReportOptions.sleep(POLL_DELAYS_MS[Math.min(poll, POLL_DELAYS_MS.length - 1)]!);
    const run = await client.ok('GET', `/${runId}`, { fields: 'id,async_status,async_percent_completion' });
    if (run.async_status === 'Job Completed' && Number(run.async_percent_completion) >= 100) return runId;
    if (run.async_status === 'Job Failed' || run.async_status === 'Job Skipped') {
      throw new PlatformError('meta_ads', 'retryable', `Meta could not finish the report (${String(run.async_status)}). Try again later.`);
    }
    if (metaReportOptions.now() - begun > MAX_POLL_MS)
      throw new PlatformError('meta_ads', 'retryable', 'Meta is taking too long to prepare the report. Try again later.');
  }
}

const daysIn = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;

/** Reads one account's rows at a level, a page at a time (see the file comment). */
export const metaReport: Report = async function* (session, request) {
  const client = metaGraphClient(session, request);
  const accountId = request.account.id;
  const settings = await client.ok('GET', `/act_${accountId}`, { fields: 'account_id,name,currency,timezone_name' });
  const account: MetaAccountInfo = {
    id: accountId,
    name: String(settings.name ?? request.account.name),
    currency: String(settings.currency ?? request.account.currency ?? ''),
    timeZone: String(settings.timezone_name ?? 'UTC'),
  };
  const params = {
    level: LEVELS[request.level],
    fields: [...FIELDS[request.level], ...METRICS].join(','),
    time_range: JSON.stringify({ since: request.from, until: request.to }),
    time_increment: '1',
  };
  const limit = String(metaReportOptions.pageSize);
  async function* pages(
    path: string,
    extra: Record<string, string>,
    fallBackOnTooBig: boolean,
  ): AsyncGenerator<AdRow[], 'too_big' | undefined> {
    const read = graphPages<InsightsRow>(client, path, extra, fallBackOnTooBig);
    for (;;) {
      const page = await read.next();
      if (page.done) return page.value;
      yield page.value.map((row) => toAdRow(row, account, request.level));
    }
  }

  if (daysIn(request.from, request.to) <= SYNC_MAX_DAYS) {
    const outcome = yield* pages(`/act_${accountId}/insights`, params, true);
    if (outcome !== 'too_big') return;
  }
  const runId = await runReport(client, accountId, { ...params, limit });
  yield* pages(`/${runId}/insights`, {}, false);
};
