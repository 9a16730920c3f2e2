import type { IncomingMessage } from 'node:http';

import { readBody } from '@/sandbox/server';

import type { Json } from '@/sandbox/meta_ads/accounts';

/**
 * How the sandbox's Conversions API (`POST /{pixel}/events`) judges a request before it records it: Graph's
 * parameter errors for an event it would refuse (batch size, event time, action source, data processing
 * options, hashed fields), as Meta documents them (docs/SANDBOX.md).
 */

/** A Graph error: Meta's numeric code, and for the Conversions API its subcode and the words it shows a person. */
export interface GraphFailure {
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
export const MAX_EVENTS = 1000;
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
export const UNHASHED_KEYS = ['external_id', 'client_ip_address', 'client_user_agent', 'fbc', 'fbp'];
/** The identifier names the Dataset Quality API reports for user_data keys. */
export const META_IDENTIFIER_NAMES: Record<string, string> = {
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

export const parameterError = (path: string, userMessage: string, subcode = 2804019): GraphFailure => ({
  code: 100,
  message: 'Invalid parameter',
  subcode,
  title: 'Server-side API parameter error',
  userMessage: `The parameter ${path} ${userMessage}`,
});

export const isFilled = (value: unknown) =>
  Array.isArray(value) ? value.some((item) => typeof item === 'string' && item !== '') : typeof value === 'string' && value !== '';

/** Why Meta refuses event `index` of a request, or null; the first problem found, as Meta reports one. */
export function eventProblem(event: unknown, index: number, nowSeconds: number): GraphFailure | null {
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
export async function eventsRequest(req: IncomingMessage): Promise<Json> {
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
