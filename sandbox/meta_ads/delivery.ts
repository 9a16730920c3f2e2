/**
 * The sandbox's Conversions API (`POST /{pixel}/events`), with Graph's error shapes: one bad event fails
 * the whole request. Accepted events' hashed contact information is matched against the known people in
 * Meta's forms (sandbox/meta_ads/matching.ts); the Dataset Quality API reports it (quality.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerFailure } from '@/sandbox/conversions';
import type { ReceivedIdentifier } from '@/sandbox/matching';
import { invalidToken, META_PIXELS } from '@/sandbox/meta_ads/accounts';
import { META_KEYS } from '@/sandbox/meta_ads/matching';
import { json, readBody } from '@/sandbox/server';
import { token, type AccessToken, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

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

/** The Conversions API on the shared store: its ledger, its failure switch and the match ledger. */
export function createConversionsApi(store: SandboxStore) {
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

  /**
   * The Conversions API: one bad event fails the whole request, and nothing of it is recorded.
   * Accepted events go to the ledger under Meta's dedup key (pixel + event_name + event_id, 48 h);
   * a request with test_event_code is validated the same way and recorded under target
   * `test:{pixel}` (Events Manager's Test events tab), never mixed with the pixel's real events.
   */
  async function events(req: IncomingMessage, res: ServerResponse, url: URL, pixelId: string) {
    const failing = store.conversions.failing('meta');
    if (failing) return answerFailure(res, failing, metaFailure);
    const body = await eventsRequest(req);
    const bodyToken = typeof body.access_token === 'string' ? store.accessTokens.get(body.access_token) : undefined;
    const caller: AccessToken | null =
      store.bearerToken(req, url, 'meta') ??
      (bodyToken && bodyToken.provider === 'meta' && bodyToken.expiresAt >= Date.now() ? bodyToken : null);
    if (!caller) return invalidToken(store, res);
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

  return { events };
}

/** A switched-on transient failure as Graph answers it: too many calls (#80003, with Retry-After) or an unknown error. */
function metaFailure(res: ServerResponse, status: 500 | 429 | 503) {
  const headers: Record<string, string> = status === 429 ? { 'Retry-After': '1' } : {};
  const body =
    status === 429
      ? {
          error: {
            message: '(#80003) There have been too many calls to this ad-account.',
            type: 'OAuthException',
            code: 80003,
            fbtrace_id: 'Asandbox',
          },
        }
      : { error: { message: 'An unknown error has occurred.', type: 'OAuthException', code: 1, fbtrace_id: 'Asandbox' } };
  return json(res, status === 429 ? 400 : 500, body, headers);
}
