/**
 * The sandbox's Meta: Facebook Login (the OAuth dialog, code and long-lived token exchange, removing
 * permissions), the Graph API at the version we pin (the user, ad accounts, pixels), the Insights API (sync pages and
 * async report runs, with the `x-business-use-case-usage` header and its throttling) and the
 * Conversions API (`POST /{pixel}/events`), with Graph's error shapes. Accepted events' hashed contact
 * information is matched against the known people in Meta's forms (sandbox/matching.ts), and the
 * Dataset Quality API (`GET /dataset_quality`) reports it per pixel and event name.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import { answerFailure } from '@/sandbox/conversions';
import { META_KEYS, type ReceivedIdentifier } from '@/sandbox/matching';
import { routeTable, type RouteHandler, type RouteParams } from '@/sandbox/routes';
import { json } from '@/sandbox/server';
import { token, type AccessToken, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';
import { API_VERSIONS } from '@/lib/server/connectors/versions';
import { metaActionType } from '@/lib/shared/conversions/reconciliation';
import {
  META_IDENTIFIER_NAMES,
  UNHASHED_KEYS,
  isFilled,
  eventProblem,
  parameterError,
  MAX_EVENTS,
  eventsRequest,
  GraphFailure,
} from '@/sandbox/meta_ads/delivery';
import { createInsights } from '@/sandbox/meta_ads/report';

import { META_AD_ACCOUNTS, type Json } from '@/sandbox/meta_ads/accounts';

export { metaSandboxAccount } from '@/sandbox/meta_ads/accounts';
export { META_PURCHASE_ACTION_TYPES, USAGE_CALLS_PER_HOUR } from '@/sandbox/meta_ads/insights';

/** The Graph API version the sandbox serves: the one the app pins (lib/server/connectors/versions.ts). */
export const GRAPH_VERSION = API_VERSIONS.meta.version;
const GRAPH = `/meta/graph/${GRAPH_VERSION}`;

/** A long-lived Meta login the sandbox knows from the start: the demo organization's Meta destination uses it. */
export const META_DEMO_TOKEN = 'EAABsandboxDemoLongLivedToken';

export const META_CLIENT = { id: '100200300400500', secret: 'sandbox-meta-secret' };

const META_USER = { id: '10001', name: 'Sandbox Marketer' };
const META_PIXELS: Record<string, Array<{ id: string; name: string }>> = {
  '101': [{ id: '555000111', name: 'Acme Shoes Pixel' }],
  '102': [{ id: '555000222', name: 'Acme Outlet Pixel' }],
};
export const META: Brand = { provider: 'meta', name: 'Facebook', color: '#0866ff', account: META_USER.name };

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
