import { googleAdsConfig } from '@/lib/server/connectors/google_ads/config';
import { bearer, requestJson } from '@/lib/server/connectors/http';
import { withExchange } from '@/lib/server/connectors/errors';
import type { Delivery } from '@/lib/server/connectors/types';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { googleAdsError } from '@/lib/server/connectors/google_ads/errors';

/**
 * Conversions to a Google Ads conversion action through the Data Manager API (`POST
 * /v1/events:ingest`, ≤ 2,000 events), which replaced the Google Ads API's uploadClickConversions.
 * Data Manager fails fast: one bad event refuses the whole request, so `check` holds back what Google
 * would refuse before it can sink a batch.
 */

/** Offline conversions are taken up to 90 days old; the margin covers the time between check and send. */
const MAX_AGE_SECONDS = 90 * 24 * 3600 - 10 * 60;
/** A source's clock a little ahead passes the check; the event is then sent as happening now. */
const MAX_AHEAD_SECONDS = 5 * 60;

const clickIdOf = ({ clickIds }: ConversionEvent) =>
  // One click id per conversion, as Google Ads has always wanted: the gclid when there is one.
  clickIds.gclid
    ? { gclid: clickIds.gclid }
    : clickIds.gbraid
      ? { gbraid: clickIds.gbraid }
      : clickIds.wbraid
        ? { wbraid: clickIds.wbraid }
        : null;

/** The user identifiers in Google's forms: the Gmail-form email, the phone in E.164 with its +, the address when all four parts are there. */
export function googleIdentifiers({ user, address }: ConversionEvent): Array<Record<string, unknown>> {
  const identifiers: Array<Record<string, unknown>> = [];
  const email = user.emailGoogle ?? user.email;
  if (email) identifiers.push({ emailAddress: email });
  if (user.phoneE164) identifiers.push({ phoneNumber: user.phoneE164 });
  if (address && user.firstName && user.lastName)
    identifiers.push({
      address: { givenName: user.firstName, familyName: user.lastName, regionCode: address.regionCode, postalCode: address.postalCode },
    });
  return identifiers;
}

const CONSENT_STATUS = { granted: 'CONSENT_GRANTED', denied: 'CONSENT_DENIED' } as const;

/** The event's consent as Data Manager's Consent message (enum names of its ConsentStatus); null when not set. */
function consentOf({ consent }: ConversionEvent): Record<string, string> | null {
  if (!consent) return null;
  const wire: Record<string, string> = {};
  if (consent.adUserData) wire.adUserData = CONSENT_STATUS[consent.adUserData];
  if (consent.adPersonalization) wire.adPersonalization = CONSENT_STATUS[consent.adPersonalization];
  return Object.keys(wire).length > 0 ? wire : null;
}

/**
 * One event in Data Manager's JSON (google.ads.datamanager.v1.Event): the transaction id is our
 * event id (Google dedups on it per conversion action), identifiers are already SHA-256 hex in
 * Google's forms, consent as the person gave it.
 */
export function toDataManagerEvent(event: ConversionEvent, now: Date): Record<string, unknown> {
  const { context } = event;
  const time = Math.min(event.time, Math.floor(now.getTime() / 1000));
  const clickId = clickIdOf(event);
  const identifiers = googleIdentifiers(event);
  const consent = consentOf(event);
  const device = { ...(context.userAgent ? { userAgent: context.userAgent } : {}), ...(context.ip ? { ipAddress: context.ip } : {}) };
  return {
    transactionId: event.id,
    eventTimestamp: new Date(time * 1000).toISOString(),
    eventSource: context.actionSource === 'website' ? 'WEB' : 'OTHER',
    ...(clickId ? { adIdentifiers: clickId } : {}),
    ...(identifiers.length > 0 ? { userData: { userIdentifiers: identifiers } } : {}),
    ...(consent ? { consent } : {}),
    ...(event.value !== null ? { conversionValue: event.value } : {}),
    ...(event.currency ? { currency: event.currency } : {}),
    ...(Object.keys(device).length > 0 ? { eventDeviceInfo: device } : {}),
  };
}

export const googleAdsDelivery: Delivery = {
  maxBatch: 2000,
  // What `check` matches by: a click id or a user identifier (an address only with the name).
  needs: {
    anyOf: [
      { identifiers: ['clickIds'], columns: ['gclid'] },
      { identifiers: ['email'], columns: ['email'] },
      { identifiers: ['phone'], columns: ['phone'] },
      // The name comes only from columns (a warehouse row); the address's country may be the source's default.
      { identifiers: ['name', 'address'], columns: ['firstName', 'lastName'] },
    ],
    why: 'Google Ads matches a conversion by its click id (gclid, gbraid, wbraid) or a user identifier (email, phone, name with address)',
  },
  check(event, now) {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if (event.time < nowSeconds - MAX_AGE_SECONDS) return 'Older than 90 days: Google Ads takes conversions from the last 90 days';
    if (event.time > nowSeconds + MAX_AHEAD_SECONDS) return 'In the future: Google Ads takes only conversions that already happened';
    if (!clickIdOf(event) && googleIdentifiers(event).length === 0)
      return 'No identifier Google Ads can match (gclid, gbraid, wbraid, email, phone with its country, or a full address)';
    return null;
  },
  // One request per batch; Data Manager answers all or nothing, so a 200 means every event was taken.
  async send(session, account, target, events, options) {
    if (events.length === 0) return [];
    const now = new Date();
    const googleAdsId = (id: string) => id.replace(/-/g, '');
    const wire = events.map((event) => toDataManagerEvent(event, now));
    const { status, body } = await requestJson('google_ads', `${googleAdsConfig().dataManagerUrl}/events:ingest`, {
      method: 'POST',
      headers: bearer(session.accessToken, { 'Content-Type': 'application/json' }),
      body: JSON.stringify({
        destinations: [
          {
            operatingAccount: { accountType: 'GOOGLE_ADS', accountId: googleAdsId(account.id) },
            // A client is operated through the manager the login reaches it by.
            ...(account.managerId ? { loginAccount: { accountType: 'GOOGLE_ADS', accountId: googleAdsId(account.managerId) } } : {}),
            productDestinationId: target.id,
          },
        ],
        events: wire,
        encoding: 'HEX',
        // Google Ads has no test-events tab: a test send is validated, never recorded.
        validateOnly: Boolean(options?.testCode),
      }),
    });
    if (status !== 200) throw withExchange(googleAdsError(status, body), wire, body);
    if (typeof body.requestId === 'string' && body.requestId) options?.onRequest?.(body.requestId);
    // Data Manager answers for the request (its requestId), kept once per record; a refused row's answer is the
    // error that refused it alone.
    return events.map((event, index) => ({
      id: event.id,
      status: 'delivered' as const,
      exchange: { sent: wire[index], requestAnswer: body },
    }));
  },
};
