/**
 * The sandbox's Insights API. Figures come from sandbox/adData.ts (level `adset` is its
 * `ad_group`); metrics are strings as Meta sends them, and each day's purchases appear under several
 * action types at once (pixel, website and omni-channel purchase), so a client that sums `actions`
 * counts them three times. A sync request asking for more than SYNC_MAX_ROWS rows is refused as too
 * big (code 1, Meta's words); async report runs finish on their second poll. Every call passes Meta's
 * throttling (sandbox/meta_ads/usage.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dayIn } from '@/lib/shared/connections/windows';
import { daysBetween, earliestDay, type AdDataLevel, type AdFacts, type SandboxAdAccount } from '@/sandbox/adData';
import { META_AD_ACCOUNTS, metaSandboxAccount } from '@/sandbox/meta_ads/accounts';
import { createUsage } from '@/sandbox/meta_ads/usage';
import { json, readBody } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

const INSIGHTS_LEVELS: Record<string, AdDataLevel> = { campaign: 'campaign', adset: 'ad_group', ad: 'ad' };
const INSIGHTS_FIELDS = [
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
const DEFAULT_INSIGHTS_FIELDS = ['impressions', 'spend'];
/** The purchase action types Meta reports for one pixel purchase (each with the same count). */
export const META_PURCHASE_ACTION_TYPES = ['offsite_conversion.fb_pixel_purchase', 'purchase', 'omni_purchase'];
const SYNC_MAX_ROWS = 5000;
const MAX_PAGE = 5000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

interface InsightsQuery {
  level: AdDataLevel;
  fields: string[];
  since: string;
  until: string;
  daily: boolean;
  limit: number;
}

interface ReportRun {
  id: string;
  accountId: string;
  query: InsightsQuery;
  polls: number;
  createdAt: number;
}

const isDate = (value: unknown): value is string =>
  typeof value === 'string' && DATE.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
const money = (micros: number) => (micros / 1_000_000).toFixed(2);
const cursorOf = (offset: number) => Buffer.from(`sandbox:${offset}`).toString('base64');
function offsetOf(cursor: string): number | null {
  const match = /^sandbox:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return match ? Number(match[1]) : null;
}

/** The Insights API on the shared store's ad performance, with its report runs and Meta's throttling. */
export function createInsights(store: SandboxStore) {
  const { usageHeader, refused, setUsage } = createUsage(store);
  const runs = new Map<string, ReportRun>();
  let runCounter = 0;

  const invalid = (message: string) => ({
    error: { message: `(#100) ${message}`, type: 'OAuthException', code: 100, fbtrace_id: token('A') },
  });

  /** Meta's parameters of an insights request, checked as Meta checks them; a string says what is wrong. */
  function queryOf(params: URLSearchParams, account: SandboxAdAccount): InsightsQuery | string {
    const levelName = params.get('level') ?? 'campaign';
    const level = INSIGHTS_LEVELS[levelName];
    if (!level)
      return `level must be one of the following values: ${Object.keys(INSIGHTS_LEVELS).join(', ')} (the sandbox has no account level); got '${levelName}'`;
    const rawFields = params.get('fields');
    let fields = DEFAULT_INSIGHTS_FIELDS;
    if (rawFields) {
      try {
        fields = rawFields.trim().startsWith('[')
          ? (JSON.parse(rawFields) as string[])
          : rawFields
              .split(',')
              .map((field) => field.trim())
              .filter(Boolean);
      } catch {
        return 'fields must be a comma-separated list or a JSON array of field names';
      }
      const unknown = fields.find((field) => !INSIGHTS_FIELDS.includes(field));
      if (unknown !== undefined)
        return `${unknown} is not valid for fields param. please check https://developers.facebook.com/docs/marketing-api/reference/ads-insights/ for all valid values`;
    }
    const today = dayIn(account.timeZone);
    let since: string;
    let until: string;
    const rawRange = params.get('time_range');
    if (rawRange === null) {
      // Meta's default date_preset: last_30d (the 30 days before today).
      const start = new Date(`${today}T00:00:00Z`);
      start.setUTCDate(start.getUTCDate() - 30);
      since = start.toISOString().slice(0, 10);
      const end = new Date(`${today}T00:00:00Z`);
      end.setUTCDate(end.getUTCDate() - 1);
      until = end.toISOString().slice(0, 10);
    } else {
      let range: unknown;
      try {
        range = JSON.parse(rawRange);
      } catch {
        range = null;
      }
      const { since: from, until: to } = (typeof range === 'object' && range !== null ? range : {}) as { since?: unknown; until?: unknown };
      if (!isDate(from) || !isDate(to))
        return `time_range must be a JSON object {"since":"YYYY-MM-DD","until":"YYYY-MM-DD"} of valid dates; got ${rawRange}`;
      since = from;
      until = to;
    }
    if (since > until) return `time_range is invalid: since (${since}) is after until (${until})`;
    if (since < earliestDay(today))
      return `The start date of the time range cannot be beyond 37 months from the current date (the earliest day is ${earliestDay(today)}; got ${since})`;
    const increment = params.get('time_increment');
    if (increment !== null && increment !== '1' && increment !== 'all_days')
      return `time_increment must be 1 or all_days in the sandbox; got '${increment}'`;
    const rawLimit = params.get('limit');
    const limit = rawLimit === null ? 25 : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1) return `limit must be a positive integer; got '${rawLimit}'`;
    return { level, fields, since, until, daily: increment === '1', limit: Math.min(limit, MAX_PAGE) };
  }

  /** One row of Meta's answer, with only the fields asked for (date_start and date_stop always). */
  function insightsRow(account: SandboxAdAccount, query: InsightsQuery, facts: AdFacts, dateStart: string, dateStop: string): Json {
    const conversions = String(facts.conversions);
    const value = money(facts.valueMicros);
    const full: Json = {
      account_id: account.id,
      account_name: account.name,
      account_currency: account.currency,
      campaign_id: facts.campaignId,
      campaign_name: facts.campaignName,
      ...(query.level !== 'campaign' ? { adset_id: facts.adGroupId, adset_name: facts.adGroupName } : {}),
      ...(query.level === 'ad' ? { ad_id: facts.adId, ad_name: facts.adName } : {}),
      impressions: String(facts.impressions),
      clicks: String(facts.clicks),
      spend: money(facts.spendMicros),
      // Meta leaves out `actions` when nothing happened, and lists one entry per action type.
      ...(facts.clicks > 0 || facts.conversions > 0
        ? {
            actions: [
              ...(facts.clicks > 0 ? [{ action_type: 'link_click', value: String(facts.clicks) }] : []),
              ...(facts.conversions > 0 ? META_PURCHASE_ACTION_TYPES.map((type) => ({ action_type: type, value: conversions })) : []),
            ],
          }
        : {}),
      ...(facts.conversions > 0 ? { action_values: META_PURCHASE_ACTION_TYPES.map((type) => ({ action_type: type, value })) } : {}),
    };
    const picked = Object.fromEntries(Object.entries(full).filter(([key]) => query.fields.includes(key)));
    return { ...picked, date_start: dateStart, date_stop: dateStop };
  }

  const rowsPerDay = (level: AdDataLevel) => {
    const shape = store.adData.shape;
    return level === 'campaign'
      ? shape.campaigns
      : level === 'ad_group'
        ? shape.campaigns * shape.adGroupsPerCampaign
        : shape.campaigns * shape.adGroupsPerCampaign * shape.adsPerAdGroup;
  };

  /** The days the sandbox has figures for in the query's range (clamped to 37 months and to the account's today). */
  function clampedDays(account: SandboxAdAccount, query: InsightsQuery) {
    const today = dayIn(account.timeZone);
    const start = query.since < earliestDay(today) ? earliestDay(today) : query.since;
    const end = query.until > today ? today : query.until;
    return start > end ? null : { start, end, count: [...daysBetween(start, end)].length };
  }

  /** Rows `offset` … offset + limit (one more to know whether a next page exists); daily rows skip whole days. */
  function rowsAt(account: SandboxAdAccount, query: InsightsQuery, offset: number, count: number): Json[] {
    const days = clampedDays(account, query);
    if (!days) return [];
    if (!query.daily) {
      const sums = new Map<string, AdFacts>();
      for (const facts of store.adData.rowsOf('meta', account, query.level, days.start, days.end)) {
        const key = `${facts.campaignId}/${facts.adGroupId ?? ''}/${facts.adId ?? ''}`;
        const sum = sums.get(key);
        if (!sum) sums.set(key, { ...facts });
        else {
          sum.impressions += facts.impressions;
          sum.clicks += facts.clicks;
          sum.spendMicros += facts.spendMicros;
          sum.conversions += facts.conversions;
          sum.valueMicros += facts.valueMicros;
        }
      }
      return [...sums.values()].slice(offset, offset + count).map((facts) => insightsRow(account, query, facts, query.since, query.until));
    }
    const perDay = rowsPerDay(query.level);
    const first = new Date(`${days.start}T00:00:00Z`);
    first.setUTCDate(first.getUTCDate() + Math.floor(offset / perDay));
    const from = first.toISOString().slice(0, 10);
    const rows: Json[] = [];
    let skip = offset % perDay;
    if (from > days.end) return rows;
    for (const facts of store.adData.rowsOf('meta', account, query.level, from, days.end)) {
      if (skip > 0) {
        skip -= 1;
        continue;
      }
      rows.push(insightsRow(account, query, facts, facts.date, facts.date));
      if (rows.length >= count) break;
    }
    return rows;
  }

  /** A page of `rows` (one more than `limit` when a next page exists) starting at `offset`, with Meta's cursors and a `next` URL while more follow. */
  function pageOf(rows: Json[], offset: number, limit: number, url: URL): Json {
    const data = rows.slice(0, limit);
    const paging: Json = { cursors: { before: cursorOf(offset), after: cursorOf(offset + data.length) } };
    if (rows.length > limit) {
      const next = new URL(`${store.base}${url.pathname}`);
      next.search = url.searchParams.toString();
      next.searchParams.delete('access_token');
      next.searchParams.set('after', cursorOf(offset + data.length));
      paging.next = next.toString();
    }
    return { data, paging };
  }

  /** One page of an insights answer. */
  function page(account: SandboxAdAccount, query: InsightsQuery, url: URL): Json | string {
    const after = url.searchParams.get('after');
    const offset = after ? offsetOf(after) : 0;
    if (offset === null) return `Invalid cursor: after=${after}`;
    return pageOf(rowsAt(account, query, offset, query.limit + 1), offset, query.limit, url);
  }

  /** One page of any other edge's whole list, paged as Graph pages every edge (`limit`, 25 by default, and `after`). */
  function listPage(items: Json[], url: URL): Json | string {
    const rawLimit = url.searchParams.get('limit');
    const asked = rawLimit === null ? 25 : Number(rawLimit);
    if (!Number.isInteger(asked) || asked < 1) return `limit must be a positive integer; got '${rawLimit}'`;
    const limit = Math.min(asked, MAX_PAGE);
    const after = url.searchParams.get('after');
    const offset = after ? offsetOf(after) : 0;
    if (offset === null) return `Invalid cursor: after=${after}`;
    return pageOf(items.slice(offset, offset + limit + 1), offset, limit, url);
  }

  /** A page of `items` answered with the account's usage header (or a 400 for a bad limit or cursor). */
  function answerList(res: ServerResponse, accountId: string, items: Json[], url: URL) {
    const body = listPage(items, url);
    json(res, typeof body === 'string' ? 400 : 200, typeof body === 'string' ? invalid(body) : body, usageHeader(accountId));
  }

  /** The parameters of a request: the query string, and for a POST the form or JSON body as well. */
  async function paramsOf(req: IncomingMessage, url: URL): Promise<URLSearchParams> {
    const params = new URLSearchParams(url.searchParams);
    if (req.method !== 'POST') return params;
    const raw = await readBody(req);
    if (!raw) return params;
    if ((req.headers['content-type'] ?? '').includes('json')) {
      try {
        for (const [key, value] of Object.entries(JSON.parse(raw) as Json))
          params.set(key, typeof value === 'string' ? value : JSON.stringify(value));
      } catch {
        // Answered below as missing parameters.
      }
    } else {
      for (const [key, value] of new URLSearchParams(raw)) params.set(key, value);
    }
    return params;
  }

  const missingObject = (res: ServerResponse, id: string) =>
    json(res, 400, {
      error: {
        message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
        type: 'GraphMethodException',
        code: 100,
        error_subcode: 33,
        fbtrace_id: token('A'),
      },
    });

  /** `GET act_{id}` (the account), `GET act_{id}/insights` (a sync page) and `POST act_{id}/insights` (an async report run). */
  async function adAccount(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    accountId: string,
    insights: boolean,
    pick: (item: Json) => Json,
  ) {
    const known = META_AD_ACCOUNTS.find((candidate) => candidate.account_id === accountId);
    const account = metaSandboxAccount(accountId);
    if (!known || !account) {
      return missingObject(res, `act_${accountId}`);
    }
    if (refused(res, accountId)) return;
    if (!insights) {
      return json(res, 200, pick(known), usageHeader(accountId));
    }
    const query = queryOf(await paramsOf(req, url), account);
    if (typeof query === 'string') {
      return json(res, 400, invalid(query), usageHeader(accountId));
    }
    if (req.method === 'POST') {
      runCounter += 1;
      const id = `6${String(Date.now()).slice(-9)}${String(runCounter).padStart(5, '0')}`;
      runs.set(id, { id, accountId, query, polls: 0, createdAt: Date.now() });
      json(res, 200, { report_run_id: id }, usageHeader(accountId));
      return;
    }
    const days = clampedDays(account, query);
    const size = query.daily ? (days?.count ?? 0) * rowsPerDay(query.level) : rowsPerDay(query.level);
    if (size > SYNC_MAX_ROWS) {
      return json(
        res,
        500,
        {
          error: {
            message: "Please reduce the amount of data you're asking for, then retry your request",
            type: 'OAuthException',
            code: 1,
            fbtrace_id: token('A'),
          },
        },
        usageHeader(accountId),
      );
    }
    const body = page(account, query, url);
    json(res, typeof body === 'string' ? 400 : 200, typeof body === 'string' ? invalid(body) : body, usageHeader(accountId));
    return;
  }

  /** `GET {report_run_id}` (its status) and `GET {report_run_id}/insights` (its results); false when there is no such run. */
  function reportRun(res: ServerResponse, url: URL, runId: string, insights: boolean): boolean {
    const run = runs.get(runId);
    if (!run) return false;
    const account = metaSandboxAccount(run.accountId)!;
    if (refused(res, run.accountId)) return true;
    if (!insights) {
      run.polls += 1;
      const done = run.polls >= 2;
      json(
        res,
        200,
        {
          id: run.id,
          account_id: run.accountId,
          time_ref: Math.floor(run.createdAt / 1000),
          async_status: done ? 'Job Completed' : 'Job Running',
          async_percent_completion: done ? 100 : 50,
          date_start: run.query.since,
          date_stop: run.query.until,
          ...(done ? { time_completed: Math.floor(Date.now() / 1000) } : {}),
        },
        usageHeader(run.accountId),
      );
      return true;
    }
    if (run.polls < 2) {
      json(
        res,
        400,
        invalid(`The report run ${run.id} has not completed yet: poll /${run.id} until async_status is 'Job Completed'`),
        usageHeader(run.accountId),
      );
      return true;
    }
    const params = new URLSearchParams(url.searchParams);
    const limit = params.get('limit');
    const query = {
      ...run.query,
      limit: limit !== null && Number.isInteger(Number(limit)) && Number(limit) > 0 ? Math.min(Number(limit), MAX_PAGE) : 25,
    };
    const body = page(account, query, url);
    json(res, typeof body === 'string' ? 400 : 200, typeof body === 'string' ? invalid(body) : body, usageHeader(run.accountId));
    return true;
  }

  return { adAccount, reportRun, setUsage, refused, answerList };
}
