import type { ConversionEvent, RowOutcome } from '@/lib/shared/conversions/event';
import { accountHeaders, msads } from '@/lib/server/connectors/microsoft_ads/api';
import { microsoftConfig } from '@/lib/server/connectors/microsoft_ads/config';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Delivery } from '@/lib/server/connectors/types';
import { log } from '@/lib/server/log';

/**
 * Offline conversions to a Microsoft Advertising goal (ApplyOfflineConversions, REST
 * `OfflineConversions/Apply`): up to 1,000 a request, matched by click id, each applied or refused on
 * its own. Microsoft counts a click id + conversion time once, so sending a row again is harmless.
 */

const MAX_BATCH = 1000;
/** Microsoft takes offline conversions up to 90 days after they happened. */
const LOOKBACK_SECONDS = 90 * 24 * 3600;

/** One item of PartialErrors: which conversion (Index) and why. */
interface BatchError {
  Index?: number;
  Code?: number;
  ErrorCode?: string;
  Message?: string;
}

/** Microsoft's per-row refusals in words a marketer reads in the delivery log; Microsoft's message follows. */
const ROW_REASONS: Record<string, string> = {
  OfflineConversionMicrosoftClickIdNullOrEmpty: 'No Microsoft click id (msclkid)',
  OfflineConversionMicrosoftClickIdInvalid: 'Microsoft does not recognise this click id (msclkid)',
  OfflineConversionMSClickIdNullOrEmpty: 'No Microsoft click id (msclkid)',
  OfflineConversionMSClickIdInvalid: 'Microsoft does not recognise this click id (msclkid)',
  OfflineConversionNameNullOrEmpty: 'No goal name was sent',
  OfflineConversionNameInvalid: 'The account has no active offline conversion goal of this name',
  OfflineConversionGoalTooRecent: 'The goal is less than two hours old: Microsoft takes conversions for it after that',
  OfflineConversionTimeNullOrEmpty: 'No conversion time',
  OfflineConversionTimeInvalid: 'Microsoft could not read the conversion time',
  FutureConversionTimeCannotBeSet: 'The conversion time is in the future',
  OfflineConversionTimeOutOfWindow: 'Older than 90 days: Microsoft takes offline conversions for 90 days only',
  ConversionTimeEarlierThanClickTime: 'The conversion happened before the click',
  ClickIdDateTimeOutsideGoalConversionWindow: "The click is outside the goal's conversion window",
  OfflineConversionValueInvalid: 'Microsoft refused the conversion value',
  OfflineConversionCurrencyCodeInvalid: 'Microsoft refused the currency code',
  ConversionEmailAddressIsNotHashed: 'The email address was not hashed',
  ConversionPhoneNumberIsNotHashed: 'The phone number was not hashed',
  NotEligibleForEnhancedConversions: 'The goal does not take enhanced conversions (hashed email or phone)',
};

const reasonOf = (error: BatchError) => {
  const words = (error.ErrorCode && ROW_REASONS[error.ErrorCode]) || 'Microsoft refused this conversion';
  const said = error.Message || error.ErrorCode;
  return said ? `${words}. Microsoft said: ${said}` : words;
};

/** Why Microsoft would refuse this event, or null: it needs a click, a time no later than now and within 90 days. */
function check(event: ConversionEvent, now: Date): string | null {
  if (event.consent?.adUserData === 'denied')
    return 'Consent: the person denied ad user data, and Microsoft cannot carry consent, so it was not sent';
  if (!event.clickIds.msclkid) return 'No Microsoft click id (msclkid): Microsoft matches offline conversions by click';
  const nowSeconds = now.getTime() / 1000;
  if (event.time > nowSeconds) return 'The conversion time is in the future: Microsoft refuses conversions later than now';
  if (event.time < nowSeconds - LOOKBACK_SECONDS) return 'Older than 90 days: Microsoft takes offline conversions for 90 days only';
  return null;
}

/**
 * One OfflineConversion: the goal by name, the time in UTC; the email hashed trimmed and lowercased,
 * the phone hashed in E.164 with its + (Microsoft's OfflineConversion reference; docs/MATCH_KEYS.md).
 */
const offlineConversion = (goalName: string) => (event: ConversionEvent) => ({
  MicrosoftClickId: event.clickIds.msclkid ?? null,
  ConversionName: goalName,
  ConversionTime: new Date(event.time * 1000).toISOString(),
  ConversionValue: event.value,
  ConversionCurrencyCode: event.currency,
  HashedEmailAddress: event.user.email ?? null,
  HashedPhoneNumber: event.user.phoneE164 ?? null,
});

export const microsoftDelivery: Delivery = {
  maxBatch: MAX_BATCH,
  // `check` sends no offline conversion without its click id, hashed email and phone only add to it.
  needs: {
    anyOf: [{ identifiers: ['clickIds'], columns: ['msclkid'] }],
    why: 'Microsoft Advertising matches offline conversions by the click (msclkid)',
  },
  check,
  async send(session, account, target, events, options) {
    // Microsoft has no test mode: a test run sends nothing rather than count real conversions.
    if (options?.testCode) {
      const now = new Date();
      return events.map((event) => ({
        id: event.id,
        status: 'not_sent' as const,
        reason: check(event, now) ?? 'Test run: Microsoft Advertising has no test mode, so nothing was sent',
      }));
    }
    if (events.length === 0) return [];
    // The goal is named, not numbered: listTargets gives goals as { id: Id, name: Name }.
    const wire = events.map(offlineConversion(target.name));
    const body = await msads(
      `${microsoftConfig().campaignManagementUrl}/OfflineConversions/Apply`,
      session.accessToken,
      { OfflineConversions: wire },
      accountHeaders(account),
    );
    const refused = new Map<number, string>();
    const errorsOf = new Map<number, BatchError[]>();
    for (const error of Array.isArray(body.PartialErrors) ? (body.PartialErrors as BatchError[]) : []) {
      const index = events.length === 1 ? 0 : error.Index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= events.length) {
        // Which row is unknown: refuse the request so the caller splits it (repeats of applied rows are ignored by Microsoft).
        log.warn(
          { component: 'platforms', platform: 'microsoft_ads', index: error.Index, code: error.ErrorCode },
          'Microsoft offline conversion error without a row',
        );
        throw new PlatformError(
          'microsoft_ads',
          'invalid',
          `Microsoft Advertising refused a conversion without saying which: ${reasonOf(error)}`,
        );
      }
      const reason = reasonOf(error);
      refused.set(index, refused.has(index) ? `${refused.get(index)}; ${reason}` : reason);
      errorsOf.set(index, [...(errorsOf.get(index) ?? []), error]);
    }
    return events.map((event, index): RowOutcome => {
      const reason = refused.get(index);
      // Each row's answer: the PartialErrors naming its index (none: applied).
      const exchange = { sent: wire[index], answer: { PartialErrors: errorsOf.get(index) ?? [] } };
      return reason ? { id: event.id, status: 'rejected', reason, exchange } : { id: event.id, status: 'delivered', exchange };
    });
  },
};
