import { metaConfig } from '@/lib/server/connectors/meta_ads/config';
import { metaAdsError } from '@/lib/server/connectors/meta_ads/errors';
import { withExchange } from '@/lib/server/connectors/errors';
import { bearer, requestJson } from '@/lib/server/connectors/http';
import type { Delivery } from '@/lib/server/connectors/types';
import type { ConversionEvent } from '@/lib/shared/conversions/event';

/**
 * Conversions to a Meta pixel through the Conversions API (`POST /{pixel}/events`, ≤ 1,000 events).
 * Meta refuses the whole request when one event is bad (older than 7 days, no matchable customer
 * information …), so `check` holds back what Meta would refuse before it can sink a batch.
 */

/** Meta takes events up to 7 days old; the margin covers the time between check and send, and clock skew. */
const MAX_AGE_SECONDS = 7 * 24 * 3600 - 10 * 60;
/** Meta's Conversions API has no consent field: an event whose person refused ad use of their data is not sent. */
const DENIED_AD_USER_DATA = 'Consent: the person denied ad user data, and Meta cannot carry consent, so it was not sent';

/** Meta refuses events dated after they are sent; a little clock skew passes. */
const MAX_AHEAD_SECONDS = 5 * 60;

/**
 * One event in Meta's wire format (identifiers already SHA-256 hashed; click ids, IP and user agent
 * never are). Absent values are left out; built by assignment, as it runs for every event sent.
 */
export function toMetaEvent(event: ConversionEvent): Record<string, unknown> {
  const { user, clickIds, context } = event;
  const userData: Record<string, unknown> = {};
  if (user.email) userData.em = [user.email];
  if (user.phone) userData.ph = [user.phone];
  if (user.firstName) userData.fn = user.firstName;
  if (user.lastName) userData.ln = user.lastName;
  if (user.externalId) userData.external_id = user.externalId;
  if (user.city) userData.ct = user.city;
  if (user.state) userData.st = user.state;
  if (user.postalCode) userData.zp = user.postalCode;
  if (user.countryCode) userData.country = user.countryCode;
  if (user.dateOfBirth) userData.db = user.dateOfBirth;
  if (user.gender) userData.ge = user.gender;
  if (clickIds.fbc) userData.fbc = clickIds.fbc;
  if (clickIds.fbp) userData.fbp = clickIds.fbp;
  if (context.ip) userData.client_ip_address = context.ip;
  if (context.userAgent) userData.client_user_agent = context.userAgent;
  const wire: Record<string, unknown> = {
    event_name: event.name,
    event_time: event.time,
    event_id: event.id,
    action_source: context.actionSource,
  };
  if (context.pageUrl) wire.event_source_url = context.pageUrl;
  wire.user_data = userData;
  if (event.limitedDataUse) {
    // Limited Data Use with country and state 0: Meta geolocates the event to apply it.
    wire.data_processing_options = ['LDU'];
    wire.data_processing_options_country = 0;
    wire.data_processing_options_state = 0;
  }
  if (event.value !== null) wire.custom_data = event.currency ? { value: event.value, currency: event.currency } : { value: event.value };
  return wire;
}

export const metaDelivery: Delivery = {
  maxBatch: 1000,
  // What `check` matches by: at least one customer information parameter it takes alone.
  needs: {
    anyOf: [
      { identifiers: ['email'], columns: ['email'] },
      { identifiers: ['phone'], columns: ['phone'] },
      { identifiers: ['externalId'], columns: ['externalId'] },
      { identifiers: ['clickIds'], columns: ['fbc', 'fbclid', 'fbp'] },
      { identifiers: ['context'], columns: [] },
    ],
    why: 'Meta matches an event by its email, phone, external id, click cookie (fbc/fbp) or IP address with user agent',
  },
  check(event, now) {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if (event.time < nowSeconds - MAX_AGE_SECONDS) return 'Older than 7 days: Meta accepts events from the last 7 days';
    if (event.time > nowSeconds + MAX_AHEAD_SECONDS) return 'In the future: Meta accepts only events that already happened';
    const { user, clickIds, context } = event;
    if (event.consent?.adUserData === 'denied') return DENIED_AD_USER_DATA;
    if (context.actionSource === 'website' && !context.userAgent)
      return "Website event without the browser's user agent: Meta requires it for website events";
    const matchable = user.email || user.phone || user.externalId || clickIds.fbc || clickIds.fbp || (context.ip && context.userAgent);
    if (!matchable) return 'No identifier Meta can match (email, phone, external id, fbc/fbp, or IP with user agent)';
    return null;
  },
  // One request per batch; Meta answers all or nothing, so a 200 means every event was received.
  async send(session, _account, target, events, options) {
    const data = events.map(toMetaEvent);
    const { status, body } = await requestJson('meta_ads', `${metaConfig().graphUrl}/${encodeURIComponent(target.id)}/events`, {
      method: 'POST',
      headers: bearer(session.accessToken, { 'Content-Type': 'application/json' }),
      body: JSON.stringify({ data, ...(options?.testCode ? { test_event_code: options.testCode } : {}) }),
    });
    if (status !== 200) throw withExchange(metaAdsError(status, body), data, body);
    // Meta answers for the request (events_received, messages, fbtrace_id), nothing per row: kept once per record.
    return events.map((event, index) => ({
      id: event.id,
      status: 'delivered' as const,
      exchange: { sent: data[index], requestAnswer: body },
    }));
  },
};
