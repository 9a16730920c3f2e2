/**
 * The sandbox's Events API 2.0 (`POST /event/track/`), with TikTok's answer shape (HTTP 200, `code`): one bad
 * event fails the whole request and nothing of it is recorded. Accepted events go to the ledger under TikTok's
 * dedup key (event_source_id + event + event_id, 48 h); their hashed email and phone are judged in TikTok's
 * forms (matching.ts), and whether TikTok's report could attribute it (a ttclid or a known person: reporting.ts). A request with test_event_code is recorded under `test:{pixel}`, never with real events.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerFailure } from '@/sandbox/conversions';
import { personOf, type ReceivedIdentifier } from '@/sandbox/matching';
import { callerOf, ok, ownerOfPixel, parameterError, refuseToken, tiktokAnswer } from '@/sandbox/tiktok_ads/accounts';
import { TIKTOK_KEYS } from '@/sandbox/tiktok_ads/matching';
import { json, readBody } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

/** The Events API's limits and lists (docs/SANDBOX.md cites each). */
export const MAX_EVENTS = 1000;
export const EVENT_SOURCES = ['web', 'app', 'offline', 'crm'];
const MAX_AGE_SECONDS = 7 * 24 * 3600;
const MAX_AHEAD_SECONDS = 5 * 60;
const SHA256_HEX = /^[0-9a-f]{64}$/;
/** `user` keys TikTok takes only SHA-256 hashed. */
const HASHED_FIELDS = ['email', 'phone', 'external_id'];
/** `user` keys sent in clear: counted for coverage only. */
const CLEAR_KEYS = ['external_id', 'ttclid', 'ttp', 'ip', 'user_agent'];

const isFilled = (value: unknown) =>
  Array.isArray(value) ? value.some((item) => typeof item === 'string' && item !== '') : typeof value === 'string' && value !== '';

/** Why TikTok refuses event `index`, or null; the first problem found, as TikTok reports one. */
function eventProblem(event: unknown, index: number, nowSeconds: number): string | null {
  const at = `data[${index}]`;
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return `${at}: Must be an object.`;
  const e = event as Json;
  if (typeof e.event !== 'string' || e.event === '') return `${at}.event: Missing data for required field.`;
  if (typeof e.event_time !== 'number' || !Number.isInteger(e.event_time)) return `${at}.event_time: Must be a Unix timestamp in seconds.`;
  if (e.event_time < nowSeconds - MAX_AGE_SECONDS) return `${at}.event_time: The event is more than 7 days old.`;
  if (e.event_time > nowSeconds + MAX_AHEAD_SECONDS) return `${at}.event_time: The event time is in the future.`;
  if (e.event_id !== undefined && typeof e.event_id !== 'string') return `${at}.event_id: Must be a string.`;
  if (e.user !== undefined && (typeof e.user !== 'object' || e.user === null || Array.isArray(e.user)))
    return `${at}.user: Must be an object.`;
  const user = (e.user ?? {}) as Json;
  for (const field of HASHED_FIELDS) {
    const value = user[field];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item !== 'string' || !SHA256_HEX.test(item)))
      return `${at}.user.${field}: Must be SHA-256 hashed (64 lowercase hexadecimal characters).`;
  }
  for (const field of ['ttclid', 'ttp', 'ip', 'user_agent'])
    if (user[field] !== undefined && typeof user[field] !== 'string') return `${at}.user.${field}: Must be a string.`;
  if (e.properties !== undefined) {
    if (typeof e.properties !== 'object' || e.properties === null || Array.isArray(e.properties))
      return `${at}.properties: Must be an object.`;
    const properties = e.properties as Json;
    if (properties.value !== undefined && (typeof properties.value !== 'number' || !Number.isFinite(properties.value)))
      return `${at}.properties.value: Must be a number.`;
    if (properties.currency !== undefined && (typeof properties.currency !== 'string' || !/^[A-Z]{3}$/.test(properties.currency)))
      return `${at}.properties.currency: Must be an ISO 4217 currency code.`;
  }
  if (e.page !== undefined) {
    const page = e.page as Json | null;
    if (typeof page !== 'object' || page === null || (page.url !== undefined && typeof page.url !== 'string'))
      return `${at}.page.url: Must be a string.`;
  }
  return null;
}

export function createEventsApi(store: SandboxStore) {
  async function track(req: IncomingMessage, res: ServerResponse) {
    const failing = store.conversions.failing('tiktok');
    if (failing) return answerFailure(res, failing, tiktokFailure);
    const caller = callerOf(store, req);
    if (!caller) return refuseToken(req, res);
    let body: Json;
    try {
      const parsed: unknown = JSON.parse((await readBody(req)) || '{}');
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return parameterError(res, 'The request body must be a JSON object.');
      body = parsed as Json;
    } catch {
      return parameterError(res, 'The request body is not valid JSON.');
    }
    if (typeof body.event_source !== 'string' || !EVENT_SOURCES.includes(body.event_source))
      return parameterError(res, `event_source: Must be one of ${EVENT_SOURCES.join(', ')}.`);
    const sourceId = typeof body.event_source_id === 'string' ? body.event_source_id : '';
    if (!sourceId) return parameterError(res, 'event_source_id: Missing data for required field.');
    // The sandbox knows pixels only: an offline or CRM event set id is one it has none of.
    if (body.event_source !== 'web' || !ownerOfPixel(sourceId))
      return tiktokAnswer(res, 40001, `No permission to operate event source ${sourceId}, or it does not exist.`);
    const data = body.data;
    if (!Array.isArray(data) || data.length === 0) return parameterError(res, 'data: Must be a non-empty array.');
    if (data.length > MAX_EVENTS)
      return parameterError(res, `data: Length must be between 1 and ${MAX_EVENTS}; this request has ${data.length}.`);
    const nowSeconds = Math.floor(Date.now() / 1000);
    for (const [index, event] of data.entries()) {
      const problem = eventProblem(event, index, nowSeconds);
      if (problem) return parameterError(res, problem);
    }
    const testCode = typeof body.test_event_code === 'string' && body.test_event_code !== '' ? body.test_event_code : null;
    const target = testCode ? `test:${sourceId}` : sourceId;
    for (const event of data as Json[]) {
      const eventId = typeof event.event_id === 'string' && event.event_id ? event.event_id : token('no-id-');
      const kept = testCode ? { ...event, test_event_code: testCode } : event;
      store.conversions.record('tiktok', `${target}|${String(event.event)}|${eventId}`, target, kept, 'first', {
        attributable: attributable(event),
      });
      judge(target, event);
    }
    store.conversions.countCall('tiktok');
    return ok(res, {});
  }

  /**
   * Whether TikTok could tie the event to someone who saw an ad (what its report may attribute, reporting.ts): a
   * ttclid (the ad click's id), or a hashed email or phone of a known person in TikTok's form.
   */
  function attributable(event: Json): boolean {
    const user = (event.user ?? {}) as Json;
    if (isFilled(user.ttclid)) return true;
    return TIKTOK_KEYS.some((key) => {
      const value = user[key];
      return (Array.isArray(value) ? value : value === undefined ? [] : [value]).some((item) => personOf('tiktok', key, String(item)));
    });
  }

  /** Matches an accepted event's hashed email and phone against the known people, in TikTok's forms. */
  function judge(target: string, event: Json) {
    const user = (event.user ?? {}) as Json;
    const identifiers: ReceivedIdentifier[] = [];
    for (const key of TIKTOK_KEYS) {
      const value = user[key];
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) identifiers.push({ key, value: String(item) });
    }
    store.matches.judge(
      'tiktok',
      target,
      String(event.event),
      identifiers,
      CLEAR_KEYS.filter((key) => isFilled(user[key])),
    );
  }

  return { track };
}

/** A switched-on transient failure as TikTok answers it: too many requests (40100) or a system error (50000), HTTP 200 both. */
function tiktokFailure(res: ServerResponse, status: 500 | 429 | 503) {
  return json(res, 200, {
    code: status === 429 ? 40100 : 50000,
    message: status === 429 ? 'Too many requests. Please retry in some time.' : 'System error. Please retry in some time.',
    request_id: 'sandbox',
    data: {},
  });
}
