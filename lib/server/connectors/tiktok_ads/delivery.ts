import { tiktokConfig } from '@/lib/server/connectors/tiktok_ads/config';
import { tiktokAdsError } from '@/lib/server/connectors/tiktok_ads/errors';
import { withExchange } from '@/lib/server/connectors/errors';
import { requestJson } from '@/lib/server/connectors/http';
import type { Delivery } from '@/lib/server/connectors/types';
import type { ConversionEvent } from '@/lib/shared/conversions/event';

/**
 * Conversions to a TikTok pixel through the Events API 2.0 (`POST /event/track/`, `event_source` web, the pixel
 * code as `event_source_id`, ≤ 1,000 events). TikTok refuses the whole request when one event is bad, so
 * `check` holds back what it would refuse before it can sink a batch.
 */

/** TikTok's largest `data` array per request. */
export const TIKTOK_MAX_EVENTS = 1000;
/** TikTok takes web events up to 7 days old; the margin covers the time between check and send, and clock skew. */
const MAX_AGE_SECONDS = 7 * 24 * 3600 - 10 * 60;
/** An event dated after it is sent is refused; a little clock skew passes. */
const MAX_AHEAD_SECONDS = 5 * 60;
const DENIED_AD_USER_DATA = 'Consent: the person denied ad user data, and TikTok cannot carry consent, so it was not sent';

/**
 * One event in TikTok's wire format: email (trimmed, lowercase) and phone (E.164 with its +) SHA-256 hashed,
 * external id hashed; ttclid, ttp, IP and user agent never are. Absent values are left out.
 */
export function toTikTokEvent(event: ConversionEvent): Record<string, unknown> {
  const { user, clickIds, context } = event;
  const wireUser: Record<string, unknown> = {};
  if (user.email) wireUser.email = user.email;
  if (user.phoneE164) wireUser.phone = user.phoneE164;
  if (user.externalId) wireUser.external_id = user.externalId;
  if (clickIds.ttclid) wireUser.ttclid = clickIds.ttclid;
  if (clickIds.ttp) wireUser.ttp = clickIds.ttp;
  if (context.ip) wireUser.ip = context.ip;
  if (context.userAgent) wireUser.user_agent = context.userAgent;
  const wire: Record<string, unknown> = { event: event.name, event_time: event.time, event_id: event.id, user: wireUser };
  if (event.value !== null) wire.properties = event.currency ? { value: event.value, currency: event.currency } : { value: event.value };
  if (context.pageUrl) wire.page = { url: context.pageUrl };
  if (event.limitedDataUse) wire.limited_data_use = true;
  return wire;
}

export const tiktokDelivery: Delivery = {
  maxBatch: TIKTOK_MAX_EVENTS,
  needs: {
    anyOf: [
      { identifiers: ['email'], columns: ['email'] },
      { identifiers: ['phone'], columns: ['phone'] },
      { identifiers: ['externalId'], columns: ['externalId'] },
      { identifiers: ['clickIds'], columns: ['ttclid', 'ttp'] },
      { identifiers: ['context'], columns: [] },
    ],
    why: 'TikTok matches an event by its email, phone, external id, click id (ttclid), _ttp cookie or IP address with user agent',
  },
  check(event, now) {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if (event.time < nowSeconds - MAX_AGE_SECONDS) return 'Older than 7 days: TikTok accepts web events from the last 7 days';
    if (event.time > nowSeconds + MAX_AHEAD_SECONDS) return 'In the future: TikTok accepts only events that already happened';
    if (event.consent?.adUserData === 'denied') return DENIED_AD_USER_DATA;
    const { user, clickIds, context } = event;
    const matchable =
      user.email || user.phoneE164 || user.externalId || clickIds.ttclid || clickIds.ttp || (context.ip && context.userAgent);
    if (!matchable) return 'No identifier TikTok can match (email, phone, external id, ttclid, _ttp, or IP with user agent)';
    return null;
  },
  // One request per batch; TikTok answers all or nothing, so code 0 means every event was received.
  async send(session, _account, target, events, options) {
    const data = events.map(toTikTokEvent);
    const { status, body } = await requestJson('tiktok_ads', `${tiktokConfig().apiUrl}/event/track/`, {
      method: 'POST',
      headers: { 'Access-Token': session.accessToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        event_source: 'web',
        event_source_id: target.id,
        ...(options?.testCode ? { test_event_code: options.testCode } : {}),
        data,
      }),
    });
    if (status !== 200 || body.code !== 0) throw withExchange(tiktokAdsError(status, body), data, body);
    return events.map((event, index) => ({
      id: event.id,
      status: 'delivered' as const,
      exchange: { sent: data[index], requestAnswer: body },
    }));
  },
};
