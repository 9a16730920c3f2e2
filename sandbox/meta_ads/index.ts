/**
 * The sandbox's Meta: Facebook Login (the OAuth dialog, code and long-lived token exchange, removing
 * permissions), the Graph API at the version we pin (the user, ad accounts, pixels), the Insights API (sync pages and
 * async report runs, with the `x-business-use-case-usage` header and its throttling) and the
 * Conversions API (`POST /{pixel}/events`), with Graph's error shapes. Accepted events' hashed contact
 * information is matched against the known people in Meta's forms (sandbox/matching.ts), and the
 * Dataset Quality API (`GET /dataset_quality`) reports it per pixel and event name.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dayIn } from '@/lib/shared/connections/windows';
import { daysBetween, earliestDay, type AdDataLevel, type AdFacts, type SandboxAdAccount } from '@/sandbox/adData';
import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import { answerFailure } from '@/sandbox/conversions';
import { META_KEYS, type ReceivedIdentifier } from '@/sandbox/matching';
import { routeTable, type RouteHandler, type RouteParams } from '@/sandbox/routes';
import { json, readBody } from '@/sandbox/server';
import { token, type AccessToken, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';
import { API_VERSIONS } from '@/lib/server/connectors/versions';
import { metaActionType } from '@/lib/shared/conversions/reconciliation';

type Json = Record<string, unknown>;

/** The Graph API version the sandbox serves: the one the app pins (lib/server/connectors/versions.ts). */
export const GRAPH_VERSION = API_VERSIONS.meta.version;
const GRAPH = `/meta/graph/${GRAPH_VERSION}`;

/** A long-lived Meta login the sandbox knows from the start: the demo organization's Meta destination uses it. */
export const META_DEMO_TOKEN = 'EAABsandboxDemoLongLivedToken';

export const META_CLIENT = { id: '100200300400500', secret: 'sandbox-meta-secret' };

const META_USER = { id: '10001', name: 'Sandbox Marketer' };
const META_AD_ACCOUNTS = [
  { id: 'act_101', account_id: '101', name: 'Acme Shoes (Meta)', currency: 'USD', timezone_name: 'America/New_York', account_status: 1 },
  { id: 'act_102', account_id: '102', name: 'Acme Outlet (Meta)', currency: 'USD', timezone_name: 'Europe/London', account_status: 1 },
];

/** A sandbox ad account as sandbox/adData.ts knows it (id without `act_`), for tests that compute expected figures. */
export function metaSandboxAccount(accountId: string): SandboxAdAccount | null {
  const account = META_AD_ACCOUNTS.find((candidate) => candidate.account_id === accountId.replace(/^act_/, ''));
  return account ? { id: account.account_id, name: account.name, currency: account.currency, timeZone: account.timezone_name } : null;
}
const META_PIXELS: Record<string, Array<{ id: string; name: string }>> = {
  '101': [{ id: '555000111', name: 'Acme Shoes Pixel' }],
  '102': [{ id: '555000222', name: 'Acme Outlet Pixel' }],
};
export const META: Brand = { provider: 'meta', name: 'Facebook', color: '#0866ff', account: META_USER.name };

/** A Graph error: Meta's numeric code, and for the Conversions API its subcode and the words it shows a person. */
interface GraphFailure {
  code: number;
  message: string;
  subcode?: number;
  title?: string;
  userMessage?: string;
}

/**
 * The Conversions API's rules, as Meta documents and answers them. Codes confirmed from public
 * traces: 100/33 (object missing or not reachable), 100/2804003 (event_time older than 7 days),
 * 100/2804019 (a required parameter missing), 100/2804050 (no usable customer information). Our
 * own plausible picks, not confirmed: 2804004 for an event_time in the future, 2804019 for malformed
 * values (an unhashed em, an unknown action_source, a non-numeric value), and the wording of the
 * batch-size and future-time messages.
 */
const MAX_EVENTS = 1000;
const MAX_AGE_SECONDS = 7 * 24 * 3600;
const MAX_AHEAD_SECONDS = 5 * 60;
const ACTION_SOURCES = [
  'email',
  'website',
  'app',
  'phone_call',
  'chat',
  'physical_store',
  'system_generated',
  'business_messaging',
  'other',
];
/** data_processing_options_country and _state: the values Meta lists (0: Meta geolocates). */
const DPO_COUNTRIES = [0, 1];
const DPO_STATES = [0, ...Array.from({ length: 14 }, (_, index) => 1000 + index)];
/** Contact information Meta accepts only hashed (SHA-256, lowercase hex); external_id is "hashing recommended" and passes as is. */
const HASHED_FIELDS = ['em', 'ph', 'fn', 'ln', 'ge', 'db', 'ct', 'st', 'zp', 'country'];
const SHA256_HEX = /^[0-9a-f]{64}$/;
/** user_data keys that are not hashed contact information: counted for coverage only. */
const UNHASHED_KEYS = ['external_id', 'client_ip_address', 'client_user_agent', 'fbc', 'fbp'];
/** The identifier names the Dataset Quality API reports for user_data keys. */
const META_IDENTIFIER_NAMES: Record<string, string> = {
  em: 'email',
  ph: 'phone',
  fn: 'first_name',
  ln: 'last_name',
  ct: 'city',
  st: 'state',
  zp: 'zip_code',
  country: 'country',
  db: 'date_of_birth',
  ge: 'gender',
  external_id: 'external_id',
  client_ip_address: 'ip_address',
  client_user_agent: 'user_agent',
  fbc: 'fbc',
  fbp: 'fbp',
};

const parameterError = (path: string, userMessage: string, subcode = 2804019): GraphFailure => ({
  code: 100,
  message: 'Invalid parameter',
  subcode,
  title: 'Server-side API parameter error',
  userMessage: `The parameter ${path} ${userMessage}`,
});

const isFilled = (value: unknown) =>
  Array.isArray(value) ? value.some((item) => typeof item === 'string' && item !== '') : typeof value === 'string' && value !== '';

/** Why Meta refuses event `index` of a request, or null; the first problem found, as Meta reports one. */
function eventProblem(event: unknown, index: number, nowSeconds: number): GraphFailure | null {
  const at = `$['data'][${index}]`;
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return parameterError(at, 'must be an object.');
  const e = event as Json;
  if (typeof e.event_name !== 'string' || e.event_name === '') return parameterError(`${at}['event_name']`, 'is required.');
  if (e.event_time === undefined || e.event_time === null) return parameterError(`${at}['event_time']`, 'is required.');
  if (typeof e.event_time !== 'number' || !Number.isInteger(e.event_time))
    return parameterError(`${at}['event_time']`, 'must be an integer (Unix time in seconds).');
  if (e.event_time < nowSeconds - MAX_AGE_SECONDS) {
    return {
      code: 100,
      message: 'Invalid parameter',
      subcode: 2804003,
      title: 'Event Timestamp Too Old',
      userMessage: `The timestamp for this event is too far in the past. Events need to be logged with a timestamp within the last seven days of when they're sent to Meta. (event ${index})`,
    };
  }
  if (e.event_time > nowSeconds + MAX_AHEAD_SECONDS) {
    return {
      code: 100,
      message: 'Invalid parameter',
      subcode: 2804004,
      title: 'Event Timestamp In The Future',
      userMessage: `The timestamp for this event is in the future. Events must be sent with the time they happened. (event ${index})`,
    };
  }
  if (e.action_source === undefined || e.action_source === null || e.action_source === '')
    return parameterError(`${at}['action_source']`, 'is required.');
  if (typeof e.action_source !== 'string' || !ACTION_SOURCES.includes(e.action_source)) {
    return parameterError(`${at}['action_source']`, `must be one of {${ACTION_SOURCES.join(', ')}}.`);
  }
  // Limited Data Use (Server Event Parameters, "Data Processing Options"): ["LDU"] or [], a country of
  // 1 (US) or 0 (Meta geolocates), a state of 1000–1013 (California … Rhode Island) or 0.
  const options = e.data_processing_options;
  if (options !== undefined && (!Array.isArray(options) || options.some((option) => option !== 'LDU'))) {
    return parameterError(`${at}['data_processing_options']`, "must be an array holding 'LDU', or empty.");
  }
  if (e.data_processing_options_country !== undefined && !DPO_COUNTRIES.includes(e.data_processing_options_country as number)) {
    return parameterError(`${at}['data_processing_options_country']`, 'must be 1 (United States) or 0 (Meta geolocates the event).');
  }
  if (e.data_processing_options_state !== undefined && !DPO_STATES.includes(e.data_processing_options_state as number)) {
    return parameterError(
      `${at}['data_processing_options_state']`,
      'must be a state code from 1000 (California) to 1013 (Rhode Island), or 0.',
    );
  }
  if (typeof e.user_data !== 'object' || e.user_data === null || Array.isArray(e.user_data))
    return parameterError(`${at}['user_data']`, 'is required.');
  const user = e.user_data as Json;
  for (const field of HASHED_FIELDS) {
    const value = user[field];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    const bad = values.findIndex((item) => typeof item !== 'string' || !SHA256_HEX.test(item));
    if (bad >= 0) {
      return parameterError(
        `${at}['user_data']['${field}']${Array.isArray(value) ? `[${bad}]` : ''}`,
        'must be a SHA-256 hash (64 lowercase hexadecimal characters): unhashed contact information is not accepted.',
      );
    }
  }
  // Meta requires the browser's user agent with every website event (docs: "Website events … require
  // client_user_agent, action_source and event_source_url"). event_source_url is documented as required
  // too, but events without it are accepted with a diagnostic, so the sandbox lets it pass.
  if (e.action_source === 'website' && !isFilled(user.client_user_agent)) {
    return parameterError(`${at}['user_data']['client_user_agent']`, "is required for events whose action_source is 'website'.");
  }
  const matchable =
    ['em', 'ph', 'external_id', 'fbc', 'fbp'].some((field) => isFilled(user[field])) ||
    (isFilled(user.client_ip_address) && isFilled(user.client_user_agent));
  if (!matchable) {
    return {
      code: 100,
      message: 'Invalid parameter',
      subcode: 2804050,
      title: 'Insufficient customer information parameters',
      userMessage: `This event does not have enough customer information parameters to be matched. Send at least one of em, ph, external_id, fbc, fbp, or client_ip_address together with client_user_agent. (event ${index})`,
    };
  }
  if (e.custom_data !== undefined) {
    if (typeof e.custom_data !== 'object' || e.custom_data === null || Array.isArray(e.custom_data))
      return parameterError(`${at}['custom_data']`, 'must be an object.');
    const custom = e.custom_data as Json;
    if (custom.value !== undefined && (typeof custom.value !== 'number' || !Number.isFinite(custom.value)))
      return parameterError(`${at}['custom_data']['value']`, 'must be a number.');
    if (custom.currency !== undefined && (typeof custom.currency !== 'string' || !/^[A-Za-z]{3}$/.test(custom.currency))) {
      return parameterError(`${at}['custom_data']['currency']`, 'must be a valid ISO 4217 three-letter currency code.');
    }
  }
  return null;
}

/** The request's fields: a JSON body, or a form post (where `data` is a JSON string, as Graph takes it). */
async function eventsRequest(req: IncomingMessage): Promise<Json> {
  const raw = await readBody(req);
  let fields: Json = {};
  if ((req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
    fields = Object.fromEntries(new URLSearchParams(raw));
  } else {
    try {
      const parsed: unknown = raw ? JSON.parse(raw) : {};
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) fields = parsed as Json;
    } catch {
      fields = {};
    }
  }
  if (typeof fields.data === 'string') {
    try {
      fields.data = JSON.parse(fields.data);
    } catch {
      // Left as a string: refused below as not an array.
    }
  }
  return fields;
}

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
const USAGE_WINDOW_MS = 3600_000;
export const USAGE_CALLS_PER_HOUR = 600;
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

function createInsights(store: SandboxStore) {
  const usage = new Map<string, { base: number; setAt: number; calls: number[] }>();
  const runs = new Map<string, ReportRun>();
  let runCounter = 0;

  function usageEntry(accountId: string) {
    let entry = usage.get(accountId);
    if (!entry) usage.set(accountId, (entry = { base: 0, setAt: Date.now(), calls: [] }));
    const now = Date.now();
    entry.calls = entry.calls.filter((at) => at > now - USAGE_WINDOW_MS);
    return entry;
  }

  /** The account's ads_insights usage in percent: the calls of the last hour, plus a knob-set level draining over the hour. */
  function percentOf(accountId: string) {
    const entry = usageEntry(accountId);
    const base = Math.max(0, entry.base - ((Date.now() - entry.setAt) / USAGE_WINDOW_MS) * 100);
    return base + (entry.calls.length * 100) / USAGE_CALLS_PER_HOUR;
  }

  /** Minutes until the usage is back under 100 %, or 0 while it is not throttled. */
  function regainMinutes(percent: number) {
    return percent < 100 ? 0 : Math.max(1, Math.ceil((percent - 100 + 1) / (100 / 60)));
  }

  function usageHeader(accountId: string): Record<string, string> {
    const percent = percentOf(accountId);
    const rounded = Math.min(Math.round(percent), 999);
    const entry = {
      type: 'ads_insights',
      call_count: rounded,
      total_cputime: Math.round(rounded * 0.6),
      total_time: Math.round(rounded * 0.8),
      estimated_time_to_regain_access: regainMinutes(percent),
    };
    return { 'x-business-use-case-usage': JSON.stringify({ [accountId]: [entry] }) };
  }

  /**
   * Counts a call against the account, or refuses it (code 80000) once the account is at 100 %;
   * a refused call is not counted, so the window can drain. True when the call may go on.
   */
  function admit(res: ServerResponse, accountId: string): boolean {
    if (percentOf(accountId) >= 100) {
      json(
        res,
        400,
        {
          error: {
            message:
              '(#80000) There have been too many calls from this ad-account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.',
            type: 'OAuthException',
            code: 80000,
            error_subcode: 2446079,
            is_transient: true,
            fbtrace_id: token('A'),
          },
        },
        usageHeader(accountId),
      );
      return false;
    }
    usageEntry(accountId).calls.push(Date.now());
    return true;
  }

  /** The account's failure switch (sandbox/adData.ts), answered as Graph answers such failures. */
  function answeredFailure(res: ServerResponse, accountId: string): boolean {
    const status = store.adData.failureOf(accountId);
    if (status === null) return false;
    const error =
      status === 429
        ? {
            message: '(#80000) There have been too many calls from this ad-account. Wait a bit and try again.',
            type: 'OAuthException',
            code: 80000,
            error_subcode: 2446079,
          }
        : status === 503
          ? { message: 'Service temporarily unavailable', type: 'OAuthException', code: 2, is_transient: true }
          : { message: 'An unknown error occurred', type: 'OAuthException', code: 1, is_transient: true };
    const headers: Record<string, string> =
      status === 429
        ? {
            'x-business-use-case-usage': JSON.stringify({
              [accountId]: [
                { type: 'ads_insights', call_count: 100, total_cputime: 60, total_time: 80, estimated_time_to_regain_access: 1 },
              ],
            }),
          }
        : {};
    json(res, status, { error: { ...error, fbtrace_id: token('A') } }, headers);
    return true;
  }

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

  /**
   * Answers a call to one of the account's reporting edges with its failure switch or its throttling
   * (counting it otherwise), as the insights handler does; true when answered.
   */
  const refused = (res: ServerResponse, accountId: string) => answeredFailure(res, accountId) || !admit(res, accountId);

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

  /** `POST /__sandbox/meta/usage` {accountId, percent}: sets an account's usage (0 clears it and its counted calls). */
  async function setUsage(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    let fields: Json = {};
    try {
      fields = (req.headers['content-type'] ?? '').includes('json')
        ? (JSON.parse(raw || '{}') as Json)
        : Object.fromEntries(new URLSearchParams(raw));
    } catch {
      fields = {};
    }
    const accountId = String(fields.accountId ?? '').replace(/^act_/, '');
    const percent = Number(fields.percent);
    if (!accountId || !Number.isFinite(percent) || percent < 0)
      return json(res, 400, { error: 'Send {accountId, percent} with percent ≥ 0.' });
    usage.set(accountId, { base: percent, setAt: Date.now(), calls: [] });
    return json(res, 200, { accountId, percent });
  }

  return { adAccount, reportRun, setUsage, refused, answerList };
}

/** Meta's part of the sandbox. */
export function createMeta(store: SandboxStore): SandboxPlatform {
  const insights = createInsights(store);
  // The demo organization's Meta login (scripts/lib/seed.ts): valid from the start, until revoked.
  store.accessTokens.set(META_DEMO_TOKEN, {
    provider: 'meta',
    scope: 'ads_management,ads_read,business_management',
    offline: false,
    refreshToken: null,
    expiresAt: Number.MAX_SAFE_INTEGER,
  });
  const graphError = (res: ServerResponse, status: number, code: number, message: string, subcode?: number) =>
    json(res, status, {
      error: { message, type: 'OAuthException', code, ...(subcode ? { error_subcode: subcode } : {}), fbtrace_id: token('A') },
    });
  const refuse = (res: ServerResponse, failure: GraphFailure) =>
    json(res, 400, {
      error: {
        message: failure.message,
        type: 'OAuthException',
        code: failure.code,
        ...(failure.subcode ? { error_subcode: failure.subcode } : {}),
        is_transient: false,
        ...(failure.title ? { error_user_title: failure.title, error_user_msg: failure.userMessage } : {}),
        fbtrace_id: token('A'),
      },
    });
  /** A dead or unknown token: 190, with subcode 460 once the user removed the app's access. */
  const invalidToken = (res: ServerResponse) =>
    store.revokedProviders.has('meta')
      ? graphError(
          res,
          400,
          190,
          'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
          460,
        )
      : graphError(res, 400, 190, 'Invalid OAuth access token data.');

  /**
   * The Conversions API: one bad event fails the whole request, and nothing of it is recorded.
   * Accepted events go to the ledger under Meta's dedup key (pixel + event_name + event_id, 48 h);
   * a request with test_event_code is validated the same way and recorded under target
   * `test:{pixel}` (Events Manager's Test events tab), never mixed with the pixel's real events.
   */
  async function events(req: IncomingMessage, res: ServerResponse, url: URL, pixelId: string) {
    const failing = store.conversions.failing('meta');
    if (failing) return answerFailure(res, 'meta', failing);
    const body = await eventsRequest(req);
    const bodyToken = typeof body.access_token === 'string' ? store.accessTokens.get(body.access_token) : undefined;
    const caller: AccessToken | null =
      store.bearerToken(req, url, 'meta') ??
      (bodyToken && bodyToken.provider === 'meta' && bodyToken.expiresAt >= Date.now() ? bodyToken : null);
    if (!caller) return invalidToken(res);
    const reachable = Object.values(META_PIXELS).some((pixels) => pixels.some((pixel) => pixel.id === pixelId));
    if (!reachable || !caller.scope.includes('ads_management')) {
      return refuse(res, {
        code: 100,
        subcode: 33,
        message: `Unsupported post request. Object with ID '${pixelId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
      });
    }
    const data = body.data;
    if (data === undefined || data === null || data === '')
      return refuse(res, { code: 100, message: '(#100) The parameter data is required' });
    if (!Array.isArray(data)) return refuse(res, { code: 100, message: '(#100) param data must be an array.' });
    if (data.length === 0) return refuse(res, parameterError("$['data']", 'must contain at least one event.'));
    if (data.length > MAX_EVENTS)
      return refuse(res, parameterError("$['data']", `must contain at most ${MAX_EVENTS} events; this request has ${data.length}.`));
    const nowSeconds = Math.floor(Date.now() / 1000);
    for (const [index, event] of data.entries()) {
      const problem = eventProblem(event, index, nowSeconds);
      if (problem) return refuse(res, problem);
    }
    const testCode = typeof body.test_event_code === 'string' && body.test_event_code !== '' ? body.test_event_code : null;
    const target = testCode ? `test:${pixelId}` : pixelId;
    for (const event of data as Json[]) {
      // Without an event_id Meta cannot deduplicate: every copy counts.
      const eventId = typeof event.event_id === 'string' || typeof event.event_id === 'number' ? String(event.event_id) : token('no-id-');
      // A test event keeps the code it came with: Events Manager shows it under that code's Test events.
      const kept = testCode ? { ...event, test_event_code: testCode } : event;
      store.conversions.record('meta', `${target}|${String(event.event_name)}|${eventId}`, target, kept);
      judge(target, event);
    }
    store.conversions.countCall('meta');
    return json(res, 200, { events_received: data.length, messages: [], fbtrace_id: token('A') });
  }

  /** Matches an accepted event's hashed contact information against the known people, in Meta's forms. */
  function judge(target: string, event: Json) {
    const user = event.user_data as Json;
    const identifiers: ReceivedIdentifier[] = [];
    for (const key of META_KEYS) {
      const value = user[key];
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) identifiers.push({ key, value: String(item) });
    }
    const present = UNHASHED_KEYS.filter((key) => isFilled(user[key]));
    store.matches.judge('meta', target, String(event.event_name), identifiers, present);
  }

  /**
   * The Dataset Quality API (`GET /dataset_quality?dataset_id=…&fields=web{event_match_quality,event_name}`):
   * per event name, Event Match Quality as Meta shapes it: a composite score (0–10; here the share of
   * events whose every identifier matched a known person, times 10), each identifier's coverage (the
   * share of events carrying it) and a diagnostic for each identifier whose values matched nobody.
   */
  function datasetQuality(res: ServerResponse, url: URL) {
    const datasetId = url.searchParams.get('dataset_id') ?? '';
    store.matches.countRead('meta', datasetId);
    if (!datasetId) return graphError(res, 400, 100, '(#100) The parameter dataset_id is required');
    const known = Object.values(META_PIXELS).some((pixels) => pixels.some((pixel) => pixel.id === datasetId));
    if (!known) {
      return graphError(
        res,
        400,
        100,
        `Unsupported get request. Object with ID '${datasetId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        33,
      );
    }
    const percent = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 10 : 0);
    const web = store.matches.list({ platform: 'meta', target: datasetId }).map((entry) => {
      const feedback = [
        ...Object.entries(entry.keys).map(([key, counts]) => ({
          identifier: META_IDENTIFIER_NAMES[key] ?? key,
          coverage: { percentage: percent(counts.sent, entry.events) },
        })),
        ...Object.entries(entry.present).map(([key, count]) => ({
          identifier: META_IDENTIFIER_NAMES[key] ?? key,
          coverage: { percentage: percent(count, entry.events) },
        })),
      ];
      const diagnostics = Object.entries(entry.keys)
        .filter(([, counts]) => counts.matched < counts.sent)
        .map(([key, counts]) => ({
          name: `Invalid ${META_IDENTIFIER_NAMES[key] ?? key} values`,
          description: `${counts.sent - counts.matched} of ${counts.sent} ${META_IDENTIFIER_NAMES[key] ?? key} values sent match no one: they were not normalised as Meta's customer information parameters require before hashing.`,
          solution: `Normalise ${key} as Meta documents it, then hash it with SHA-256.`,
          percentage: percent(counts.sent - counts.matched, counts.sent),
          affected_event_count: counts.sent - counts.matched,
          total_event_count: entry.events,
        }));
      return {
        event_name: entry.eventName,
        event_match_quality: {
          composite_score: Math.round((entry.matched / entry.events) * 100) / 10,
          match_key_feedback: feedback,
          ...(diagnostics.length ? { diagnostics } : {}),
        },
      };
    });
    return json(res, 200, { web });
  }

  /** A Graph time parameter: unix seconds or an ISO date-time. */
  const timeOf = (value: string | null, fallback: number) => {
    if (!value) return fallback;
    return /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  };

  /** The ad account (of the login's: every sandbox login has META_AD_ACCOUNTS) whose pixel this is, or null. */
  const ownerOfPixel = (pixelId: string) =>
    META_AD_ACCOUNTS.find((account) => META_PIXELS[account.account_id]?.some((pixel) => pixel.id === pixelId))?.account_id ?? null;
  const readsAds = (caller: AccessToken) => caller.scope.includes('ads_read') || caller.scope.includes('ads_management');
  const unreachable = (res: ServerResponse, id: string) =>
    graphError(
      res,
      400,
      100,
      `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      33,
    );

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
    if (!readsAds(caller)) return graphError(res, 403, 200, '(#200) Requires ads_read permission');
    const accountId = ownerOfPixel(pixelId);
    if (!accountId) return unreachable(res, pixelId);
    if (insights.refused(res, accountId)) return;
    const aggregation = url.searchParams.get('aggregation') ?? 'event';
    if (aggregation !== 'event') return graphError(res, 400, 100, '(#100) The sandbox serves aggregation=event only.');
    const events = statsEvents(pixelId, url.searchParams.get('event_source'));
    if (!events) return graphError(res, 400, 100, '(#100) Param event_source must be one of {WEB_ONLY, SERVER_ONLY}');
    // Without a window: the day up to the request's time, by the reports' clock.
    const now = store.reporting.clock.now();
    const start = timeOf(url.searchParams.get('start_time'), now - 24 * 3_600_000);
    const end = timeOf(url.searchParams.get('end_time'), now);
    if (Number.isNaN(start) || Number.isNaN(end)) return graphError(res, 400, 100, '(#100) start_time and end_time must be times.');
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
      return graphError(res, 400, 100, '(#100) time_range must be a JSON object with since and until.');
    }
    if (!range.since || !range.until) return graphError(res, 400, 100, '(#100) time_range must be a JSON object with since and until.');
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

  /** `GET /dialog/oauth` (Facebook Login): the consent screen, or Facebook's error page for an unknown app or redirect URI. */
  function dialog(_req: IncomingMessage, res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('client_id') !== META_CLIENT.id)
      return errorPage(res, META, 'Invalid App ID', 'The provided app ID does not look like a valid app ID.');
    if (!store.registered.has(params.get('redirect_uri') ?? '')) {
      return errorPage(
        res,
        META,
        'URL blocked',
        "This redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.",
      );
    }
    const scope = (params.get('scope') ?? '').split(',').filter(Boolean);
    return consent(
      res,
      store,
      META,
      {
        client_id: params.get('client_id')!,
        redirect_uri: params.get('redirect_uri')!,
        scope: scope.join(','),
        state: params.get('state') ?? '',
      },
      ['Manage your ads (ads_management)', 'Read your ads performance (ads_read)', 'Manage your business (business_management)'].filter(
        (_label, index) => scope.includes(['ads_management', 'ads_read', 'business_management'][index]!),
      ),
    );
  }

  /** `DELETE /me/permissions`: the user removes the app, and every Meta token dies with it. */
  function removePermissions(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (!store.bearerToken(req, url, 'meta')) return graphError(res, 400, 190, 'Invalid OAuth access token data.');
    for (const [key, grant] of store.accessTokens) if (grant.provider === 'meta') store.accessTokens.delete(key);
    return json(res, 200, { success: true });
  }

  /** `GET /oauth/access_token`: a code for a short-lived token, or (`fb_exchange_token`) a short-lived one for a 60-day one. */
  function accessToken(_req: IncomingMessage, res: ServerResponse, url: URL) {
    const params = url.searchParams;
    if (params.get('client_id') !== META_CLIENT.id || params.get('client_secret') !== META_CLIENT.secret) {
      return graphError(res, 400, 1, 'Error validating client secret.');
    }
    if (params.get('grant_type') === 'fb_exchange_token') {
      const short = store.accessTokens.get(params.get('fb_exchange_token') ?? '');
      if (!short || short.provider !== 'meta') return graphError(res, 400, 190, 'Invalid OAuth access token - Cannot parse access token');
      const longToken = store.issue(short, null, 60 * 24 * 3600);
      return json(res, 200, { access_token: longToken, token_type: 'bearer', expires_in: 5184000 });
    }
    const redeemed = store.redeem(params.get('code') ?? '', 'meta', params.get('client_id')!, params.get('redirect_uri') ?? '');
    if (redeemed === 'used') return graphError(res, 400, 100, 'This authorization code has been used.', 36009);
    if (redeemed === 'mismatch') {
      return graphError(
        res,
        400,
        100,
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
        36008,
      );
    }
    if (!redeemed) return graphError(res, 400, 100, 'Invalid verification code format.', 36007);
    return json(res, 200, { access_token: store.issue(redeemed, null, 2 * 3600), token_type: 'bearer', expires_in: 7200 });
  }

  type GraphHandler = (req: IncomingMessage, res: ServerResponse, url: URL, params: RouteParams, caller: AccessToken) => unknown;
  /** A Graph read that needs a live token (in the Authorization header or `access_token`): 190 without one. */
  const withCaller =
    (handler: GraphHandler): RouteHandler =>
    (req, res, url, params) => {
      const caller = store.bearerToken(req, url, 'meta');
      return caller ? handler(req, res, url, params, caller) : invalidToken(res);
    };
  /** Graph's `fields`: an object's id, plus the fields asked for. */
  const picker = (url: URL) => {
    const fields = (url.searchParams.get('fields') ?? 'id').split(',');
    return (item: Json) => Object.fromEntries(Object.entries(item).filter(([key]) => key === 'id' || fields.includes(key)));
  };
  const unknownPath = (res: ServerResponse) => graphError(res, 400, 2500, 'Unknown path components');

  const adAccounts: GraphHandler = (_req, res, url, _params, caller) => {
    if (!readsAds(caller)) return graphError(res, 403, 200, '(#200) Requires ads_read permission');
    return json(res, 200, { data: META_AD_ACCOUNTS.map(picker(url)), paging: { cursors: { before: 'MAZDZD', after: 'MQZDZD' } } });
  };

  /** `GET act_{id}/insights`: the attributed pixel actions with `fields=actions`, else the Insights API's sync page. */
  const accountInsights: GraphHandler = async (req, res, url, params, caller) => {
    if (url.searchParams.get('fields') === 'actions') {
      if (!readsAds(caller)) return graphError(res, 403, 200, '(#200) Requires ads_read permission');
      return attributedActions(res, url, params.account!);
    }
    return insights.adAccount(req, res, url, params.account!, true, picker(url));
  };

  /** A report run's status or results (`GET {report_run_id}[/insights]`); an unknown run is an unknown path. */
  const reportRun =
    (results: boolean): GraphHandler =>
    (_req, res, url, params) =>
      insights.reportRun(res, url, params.run!, results) ? undefined : unknownPath(res);

  const adsPixels: GraphHandler = (_req, res, url, params) => {
    const list = META_PIXELS[params.account!];
    if (!list) return unreachable(res, `act_${params.account}`);
    return json(res, 200, { data: list.map(picker(url)), paging: { cursors: { before: 'MAZDZD', after: 'MAZDZD' } } });
  };

  const handle = routeTable(
    [
      [`GET /meta/${GRAPH_VERSION}/dialog/oauth`, dialog],
      ['POST /meta/consent', (req, res) => decide(req, res, store, META)],
      [`DELETE ${GRAPH}/me/permissions`, removePermissions],
      [`POST ${GRAPH}/:pixel(\\d+)/events`, (req, res, url, params) => events(req, res, url, params.pixel!)],
      ['POST /__sandbox/meta/usage', (req, res) => insights.setUsage(req, res)],
      [
        `POST ${GRAPH}/act_:account(\\d+)/insights`,
        withCaller((req, res, url, params) => insights.adAccount(req, res, url, params.account!, true, (item) => item)),
      ],
      [`GET ${GRAPH}/oauth/access_token`, accessToken],
      [`GET ${GRAPH}/me`, withCaller((_req, res) => json(res, 200, META_USER))],
      [`GET ${GRAPH}/dataset_quality`, withCaller((_req, res, url) => datasetQuality(res, url))],
      [`GET ${GRAPH}/me/adaccounts`, withCaller(adAccounts)],
      [`GET ${GRAPH}/:pixel(\\d+)/stats`, withCaller((_req, res, url, params, caller) => pixelStats(res, url, caller, params.pixel!))],
      [`GET ${GRAPH}/act_:account(\\d+)/insights`, withCaller(accountInsights)],
      [
        `GET ${GRAPH}/act_:account(\\d+)`,
        withCaller((req, res, url, params) => insights.adAccount(req, res, url, params.account!, false, picker(url))),
      ],
      [`GET ${GRAPH}/:run(\\d+)`, withCaller(reportRun(false))],
      [`GET ${GRAPH}/:run(\\d+)/insights`, withCaller(reportRun(true))],
      [`GET ${GRAPH}/act_:account(\\d+)/adspixels`, withCaller(adsPixels)],
    ],
    // Graph refuses any other write as an unsupported post; any other read needs a live token first.
    (req, res, url) =>
      req.method !== 'GET'
        ? graphError(res, 400, 100, 'Unsupported post request.')
        : store.bearerToken(req, url, 'meta')
          ? unknownPath(res)
          : invalidToken(res),
  );

  return {
    owns: (path) => path.startsWith('/meta/') || path === '/__sandbox/meta/usage',
    handle,
  };
}

/** The environment that points the app's Meta client at the sandbox at `url`. */
export function metaEnv(url: string): Record<string, string> {
  return {
    META_APP_ID: META_CLIENT.id,
    META_APP_SECRET: META_CLIENT.secret,
    META_OAUTH_DIALOG_URL: `${url}/meta/${GRAPH_VERSION}/dialog/oauth`,
    META_GRAPH_API_URL: `${url}${GRAPH}`,
  };
}
