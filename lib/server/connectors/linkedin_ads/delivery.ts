import type { ConversionEvent, RowOutcome } from '@/lib/shared/conversions/event';
import { conversionUrn, linkedin } from '@/lib/server/connectors/linkedin_ads/api';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Delivery } from '@/lib/server/connectors/types';

/**
 * Conversions to a LinkedIn conversion rule (Conversions API, `POST /rest/conversionEvents` as a Rest.li
 * BATCH_CREATE): up to 5,000 events a request, each created or refused on its own (the answer's `elements`,
 * in the order sent). Each carries our event id as `eventId`, which LinkedIn deduplicates with the Insight
 * Tag's and with a repeat of its own, so sending a row again is harmless.
 */

/** "You can send up to 5,000 events in a single batch request." */
export const MAX_BATCH = 5000;
/** "conversionHappenedAt … must be within the past 90 days." */
export const LOOKBACK_MS = 90 * 24 * 3600 * 1000;

/** The idType of each user id we send (LinkedIn's enum; ACXIOM_ID and ORACLE_MOAT_ID we never hold). */
export const ID_TYPES = { email: 'SHA256_EMAIL', clickId: 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID' } as const;

/** Why LinkedIn would refuse this event, or null: it needs a member to match (hashed email or li_fat_id), a time no later than now and within 90 days. */
function check(event: ConversionEvent, now: Date): string | null {
  if (event.consent?.adUserData === 'denied')
    return 'Consent: the person denied ad user data, and LinkedIn cannot carry consent, so it was not sent';
  if (!event.user.email && !event.clickIds.li_fat_id)
    return 'No email or LinkedIn click id (li_fat_id): LinkedIn matches a conversion to a member by one of them';
  const time = event.time * 1000;
  if (time > now.getTime()) return 'The conversion time is in the future: LinkedIn refuses conversions later than now';
  if (time < now.getTime() - LOOKBACK_MS) return 'Older than 90 days: LinkedIn takes conversions for 90 days only';
  return null;
}

/**
 * One conversion event: the rule's URN, the time in epoch milliseconds, the value as a decimal string, our
 * event id, and the member's ids — the email hashed trimmed and lowercased (SHA256_EMAIL), the li_fat_id click
 * id as it came (docs/MATCH_KEYS.md). userInfo (names, company, title, country) takes clear text, which we
 * never keep: it is not sent.
 */
export const conversionEvent = (ruleId: string) => (event: ConversionEvent) => ({
  conversion: conversionUrn(ruleId),
  conversionHappenedAt: event.time * 1000,
  ...(event.value !== null && event.currency ? { conversionValue: { currencyCode: event.currency, amount: String(event.value) } } : {}),
  eventId: event.id,
  user: {
    userIds: [
      ...(event.user.email ? [{ idType: ID_TYPES.email, idValue: event.user.email }] : []),
      ...(event.clickIds.li_fat_id ? [{ idType: ID_TYPES.clickId, idValue: event.clickIds.li_fat_id }] : []),
    ],
  },
});

interface ElementAnswer {
  status?: number;
  error?: { message?: string; code?: string; serviceErrorCode?: number };
}

export const linkedinDelivery: Delivery = {
  maxBatch: MAX_BATCH,
  needs: {
    anyOf: [
      { identifiers: ['email'], columns: ['email'] },
      { identifiers: ['clickIds'], columns: ['li_fat_id'] },
    ],
    why: 'LinkedIn matches a conversion to a member by hashed email or the ad click (li_fat_id)',
  },
  check,
  async send(session, _account, target, events, options) {
    // LinkedIn has no test mode: a test run sends nothing rather than count real conversions.
    if (options?.testCode) {
      const now = new Date();
      return events.map((event) => ({
        id: event.id,
        status: 'not_sent' as const,
        reason: check(event, now) ?? 'Test run: LinkedIn has no test mode, so nothing was sent',
      }));
    }
    if (events.length === 0) return [];
    const wire = events.map(conversionEvent(target.id));
    const body = await linkedin(session.accessToken, 'conversionEvents', {
      method: 'POST',
      headers: { 'X-RestLi-Method': 'BATCH_CREATE' },
      body: { elements: wire },
    });
    const answers = (body.elements as ElementAnswer[] | undefined) ?? [];
    if (answers.length !== events.length)
      throw new PlatformError('linkedin_ads', 'invalid', 'LinkedIn answered for a different number of conversions than were sent.');
    return events.map((event, index): RowOutcome => {
      const answer = answers[index]!;
      const exchange = { sent: wire[index], answer };
      if (answer.status !== undefined && answer.status >= 200 && answer.status < 300)
        return { id: event.id, status: 'delivered', exchange };
      const said = answer.error?.message ?? answer.error?.code;
      return {
        id: event.id,
        status: 'rejected',
        reason: `LinkedIn refused this conversion${said ? `. LinkedIn said: ${said}` : ''}`,
        exchange,
      };
    });
  },
};
