/**
 * The sandbox's Meta: Facebook Login (the OAuth dialog, code and long-lived token exchange, removing
 * permissions), the Graph API v25.0 (the user, ad accounts, pixels) and the Conversions API
 * (`POST /{pixel}/events`), with Graph's error shapes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consent, decide, errorPage, type Brand } from '@/sandbox/consent';
import { answerFailure } from '@/sandbox/conversions';
import { json, readBody } from '@/sandbox/server';
import { token, type AccessToken, type SandboxPlatform, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

/** A long-lived Meta login the sandbox knows from the start: the demo organization's Meta destination uses it. */
export const META_DEMO_TOKEN = 'EAABsandboxDemoLongLivedToken';

export const META_CLIENT = { id: '100200300400500', secret: 'sandbox-meta-secret' };

const META_USER = { id: '10001', name: 'Sandbox Marketer' };
const META_AD_ACCOUNTS = [
  { id: 'act_101', account_id: '101', name: 'Acme Shoes (Meta)', currency: 'USD', account_status: 1 },
  { id: 'act_102', account_id: '102', name: 'Acme Outlet (Meta)', currency: 'USD', account_status: 1 },
];
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
const ACTION_SOURCES = ['email', 'website', 'app', 'phone_call', 'chat', 'physical_store', 'system_generated', 'business_messaging', 'other'];
/** Contact information Meta accepts only hashed (SHA-256, lowercase hex); external_id is "hashing recommended" and passes as is. */
const HASHED_FIELDS = ['em', 'ph', 'fn', 'ln', 'ge', 'db', 'ct', 'st', 'zp', 'country'];
const SHA256_HEX = /^[0-9a-f]{64}$/;

const parameterError = (path: string, userMessage: string, subcode = 2804019): GraphFailure => ({
  code: 100,
  message: 'Invalid parameter',
  subcode,
  title: 'Server-side API parameter error',
  userMessage: `The parameter ${path} ${userMessage}`,
});

const isFilled = (value: unknown) => (Array.isArray(value) ? value.some((item) => typeof item === 'string' && item !== '') : typeof value === 'string' && value !== '');

/** Why Meta refuses event `index` of a request, or null; the first problem found, as Meta reports one. */
function eventProblem(event: unknown, index: number, nowSeconds: number): GraphFailure | null {
  const at = `$['data'][${index}]`;
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return parameterError(at, 'must be an object.');
  const e = event as Json;
  if (typeof e.event_name !== 'string' || e.event_name === '') return parameterError(`${at}['event_name']`, 'is required.');
  if (e.event_time === undefined || e.event_time === null) return parameterError(`${at}['event_time']`, 'is required.');
  if (typeof e.event_time !== 'number' || !Number.isInteger(e.event_time)) return parameterError(`${at}['event_time']`, 'must be an integer (Unix time in seconds).');
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
  if (e.action_source === undefined || e.action_source === null || e.action_source === '') return parameterError(`${at}['action_source']`, 'is required.');
  if (typeof e.action_source !== 'string' || !ACTION_SOURCES.includes(e.action_source)) {
    return parameterError(`${at}['action_source']`, `must be one of {${ACTION_SOURCES.join(', ')}}.`);
  }
  if (typeof e.user_data !== 'object' || e.user_data === null || Array.isArray(e.user_data)) return parameterError(`${at}['user_data']`, 'is required.');
  const user = e.user_data as Json;
  for (const field of HASHED_FIELDS) {
    const value = user[field];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    const bad = values.findIndex((item) => typeof item !== 'string' || !SHA256_HEX.test(item));
    if (bad >= 0) {
      return parameterError(`${at}['user_data']['${field}']${Array.isArray(value) ? `[${bad}]` : ''}`, 'must be a SHA-256 hash (64 lowercase hexadecimal characters): unhashed contact information is not accepted.');
    }
  }
  // Meta requires the browser's user agent with every website event (docs: "Website events … require
  // client_user_agent, action_source and event_source_url"). event_source_url is documented as required
  // too, but events without it are accepted with a diagnostic, so the sandbox lets it pass.
  if (e.action_source === 'website' && !isFilled(user.client_user_agent)) {
    return parameterError(`${at}['user_data']['client_user_agent']`, "is required for events whose action_source is 'website'.");
  }
  const matchable =
    ['em', 'ph', 'external_id', 'fbc', 'fbp'].some((field) => isFilled(user[field])) || (isFilled(user.client_ip_address) && isFilled(user.client_user_agent));
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
    if (typeof e.custom_data !== 'object' || e.custom_data === null || Array.isArray(e.custom_data)) return parameterError(`${at}['custom_data']`, 'must be an object.');
    const custom = e.custom_data as Json;
    if (custom.value !== undefined && (typeof custom.value !== 'number' || !Number.isFinite(custom.value))) return parameterError(`${at}['custom_data']['value']`, 'must be a number.');
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

/** Meta's part of the sandbox. */
export function createMeta(store: SandboxStore): SandboxPlatform {
  // The demo organization's Meta login (scripts/lib/seed.ts): valid from the start, until revoked.
  store.accessTokens.set(META_DEMO_TOKEN, { provider: 'meta', scope: 'ads_management,ads_read,business_management', offline: false, refreshToken: null, expiresAt: Number.MAX_SAFE_INTEGER });
  const graphError = (res: ServerResponse, status: number, code: number, message: string, subcode?: number) =>
    json(res, status, { error: { message, type: 'OAuthException', code, ...(subcode ? { error_subcode: subcode } : {}), fbtrace_id: token('A') } });
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
      ? graphError(res, 400, 190, 'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.', 460)
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
      store.bearerToken(req, url, 'meta') ?? (bodyToken && bodyToken.provider === 'meta' && bodyToken.expiresAt >= Date.now() ? bodyToken : null);
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
    if (data === undefined || data === null || data === '') return refuse(res, { code: 100, message: '(#100) The parameter data is required' });
    if (!Array.isArray(data)) return refuse(res, { code: 100, message: '(#100) param data must be an array.' });
    if (data.length === 0) return refuse(res, parameterError("$['data']", 'must contain at least one event.'));
    if (data.length > MAX_EVENTS) return refuse(res, parameterError("$['data']", `must contain at most ${MAX_EVENTS} events; this request has ${data.length}.`));
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
      store.conversions.record('meta', `${target}|${String(event.event_name)}|${eventId}`, target, event);
    }
    store.conversions.countCall('meta');
    return json(res, 200, { events_received: data.length, messages: [], fbtrace_id: token('A') });
  }

  async function meta(req: IncomingMessage, res: ServerResponse, url: URL, path: string) {
    const params = url.searchParams;
    if (req.method === 'GET' && path === '/meta/v25.0/dialog/oauth') {
      if (params.get('client_id') !== META_CLIENT.id) return errorPage(res, META, 'Invalid App ID', 'The provided app ID does not look like a valid app ID.');
      if (!store.registered.has(params.get('redirect_uri') ?? '')) {
        return errorPage(res, META, "URL blocked", "This redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.");
      }
      const scope = (params.get('scope') ?? '').split(',').filter(Boolean);
      return consent(res, store, META, { client_id: params.get('client_id')!, redirect_uri: params.get('redirect_uri')!, scope: scope.join(','), state: params.get('state') ?? '' }, [
        'Manage your ads (ads_management)',
        'Read your ads performance (ads_read)',
        'Manage your business (business_management)',
      ].filter((_label, index) => scope.includes(['ads_management', 'ads_read', 'business_management'][index]!)));
    }
    if (req.method === 'POST' && path === '/meta/consent') return decide(req, res, store, META);
    if (req.method === 'DELETE' && path === '/meta/graph/v25.0/me/permissions') {
      if (!store.bearerToken(req, url, 'meta')) return graphError(res, 400, 190, 'Invalid OAuth access token data.');
      for (const [key, grant] of store.accessTokens) if (grant.provider === 'meta') store.accessTokens.delete(key);
      return json(res, 200, { success: true });
    }
    const pixelEvents = /^\/meta\/graph\/v25\.0\/(\d+)\/events$/.exec(path);
    if (req.method === 'POST' && pixelEvents) return events(req, res, url, pixelEvents[1]!);
    if (req.method !== 'GET') return graphError(res, 400, 100, 'Unsupported post request.');

    if (path === '/meta/graph/v25.0/oauth/access_token') {
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
        return graphError(res, 400, 100, 'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request', 36008);
      }
      if (!redeemed) return graphError(res, 400, 100, 'Invalid verification code format.', 36007);
      return json(res, 200, { access_token: store.issue(redeemed, null, 2 * 3600), token_type: 'bearer', expires_in: 7200 });
    }
    const caller = store.bearerToken(req, url, 'meta');
    if (!caller) return invalidToken(res);
    if (path === '/meta/graph/v25.0/me') return json(res, 200, META_USER);
    const fields = (params.get('fields') ?? 'id').split(',');
    const pick = (item: Json) => Object.fromEntries(Object.entries(item).filter(([key]) => key === 'id' || fields.includes(key)));
    if (path === '/meta/graph/v25.0/me/adaccounts') {
      if (!caller.scope.includes('ads_read') && !caller.scope.includes('ads_management')) return graphError(res, 403, 200, '(#200) Requires ads_read permission');
      return json(res, 200, { data: META_AD_ACCOUNTS.map(pick), paging: { cursors: { before: 'MAZDZD', after: 'MQZDZD' } } });
    }
    const pixels = /^\/meta\/graph\/v25.0\/act_(\d+)\/adspixels$/.exec(path);
    if (pixels) {
      const list = META_PIXELS[pixels[1]!];
      if (!list) return graphError(res, 400, 100, `Unsupported get request. Object with ID 'act_${pixels[1]}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, 33);
      return json(res, 200, { data: list.map(pick), paging: { cursors: { before: 'MAZDZD', after: 'MAZDZD' } } });
    }
    return graphError(res, 400, 2500, 'Unknown path components');
  }

  return { owns: (path) => path.startsWith('/meta/'), handle: (req, res, url) => meta(req, res, url, url.pathname) };
}

/** The environment that points the app's Meta client at the sandbox at `url`. */
export function metaEnv(url: string): Record<string, string> {
  return {
    META_APP_ID: META_CLIENT.id,
    META_APP_SECRET: META_CLIENT.secret,
    META_OAUTH_DIALOG_URL: `${url}/meta/v25.0/dialog/oauth`,
    META_GRAPH_API_URL: `${url}/meta/graph/v25.0`,
  };
}
