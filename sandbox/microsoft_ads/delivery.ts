/**
 * The sandbox's Microsoft offline conversions (Campaign Management `OfflineConversions/Apply`): 1 to 1,000
 * items, each applied or refused on its own, deduplicated as Microsoft counts them, their enhanced
 * conversions' hashed email and phone matched by Microsoft's forms (sandbox/microsoft_ads/matching.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerFailure } from '@/sandbox/conversions';
import { accountOf, adApiFault, MICROSOFT_GOALS } from '@/sandbox/microsoft_ads/accounts';
import { json, readBody } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';

/** Microsoft takes at most this many offline conversions in one ApplyOfflineConversions request. */
const MAX_OFFLINE_CONVERSIONS = 1000;
/** How far back an offline conversion may be (Microsoft: 90 days). */
const OFFLINE_LOOKBACK_MS = 90 * 24 * 3600 * 1000;

/**
 * Why ApplyOfflineConversions refuses a request or one of its items. The symbolic names are Microsoft's
 * (the campaign service's OfflineConversion statuses; OfflineConversionNameInvalid and
 * OfflineConversionMicrosoftClickIdInvalid as the API returns them). Of the numbers only 5614 was seen
 * in the wild; the others are plausible placeholders in the same range: the connector reads ErrorCode
 * and Message, never the number, for rows.
 */
const OFFLINE_ERRORS = {
  OfflineConversionsNullOrEmpty: [5600, 'The offline conversions array is null or empty.'],
  OfflineConversionBatchSizeExceedsLimit: [5601, `The number of offline conversions exceeds the limit of ${MAX_OFFLINE_CONVERSIONS}.`],
  OfflineConversionIsNull: [5602, 'The offline conversion is null.'],
  OfflineConversionMicrosoftClickIdNullOrEmpty: [5603, 'The Microsoft click ID is null or empty.'],
  OfflineConversionMicrosoftClickIdInvalid: [5604, 'The Microsoft click ID is invalid.'],
  OfflineConversionNameNullOrEmpty: [5605, 'The conversion name is null or empty.'],
  OfflineConversionNameInvalid: [5606, 'The conversion name does not match an active offline conversion goal.'],
  OfflineConversionTimeNullOrEmpty: [5607, 'The conversion time is null or empty.'],
  OfflineConversionTimeInvalid: [5608, 'The conversion time is invalid. It must be a UTC date and time.'],
  OfflineConversionTimeOutOfWindow: [5609, 'The conversion time is outside the 90-day lookback window.'],
  OfflineConversionValueInvalid: [5610, 'The conversion value is invalid.'],
  OfflineConversionCurrencyCodeInvalid: [5611, 'The conversion currency code is invalid.'],
  FutureConversionTimeCannotBeSet: [5614, 'The conversion time cannot be in the future.'],
  ConversionEmailAddressIsNotHashed: [5620, 'The email address is not hashed with SHA-256.'],
  ConversionPhoneNumberIsNotHashed: [5621, 'The phone number is not hashed with SHA-256.'],
} as const satisfies Record<string, readonly [number, string]>;
type OfflineError = keyof typeof OFFLINE_ERRORS;

/**
 * What Microsoft refuses in one offline conversion, or null when it applies. A click id is required
 * here (the sandbox matches by click alone); Microsoft checks it against its click log, the sandbox
 * against the usual msclkid shape: 32 hex characters. It cannot know the click's time, so "conversion
 * before the click" and the goal's own conversion window are not checked.
 */
function offlineConversionError(item: unknown, now: number): OfflineError | null {
  if (!item || typeof item !== 'object') return 'OfflineConversionIsNull';
  const row = item as Record<string, unknown>;
  const blank = (value: unknown) => value === undefined || value === null || value === '';
  if (blank(row.MicrosoftClickId)) return 'OfflineConversionMicrosoftClickIdNullOrEmpty';
  if (typeof row.MicrosoftClickId !== 'string' || !/^[0-9a-f]{32}$/i.test(row.MicrosoftClickId))
    return 'OfflineConversionMicrosoftClickIdInvalid';
  if (blank(row.ConversionName)) return 'OfflineConversionNameNullOrEmpty';
  if (!MICROSOFT_GOALS.some((goal) => goal.Name === row.ConversionName && goal.Type === 'OfflineConversion' && goal.Status === 'Active')) {
    return 'OfflineConversionNameInvalid';
  }
  if (blank(row.ConversionTime)) return 'OfflineConversionTimeNullOrEmpty';
  // xs:dateTime in UTC: a Z (or +00:00) suffix; local times are what usually lands conversions in the future.
  const time =
    typeof row.ConversionTime === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?(Z|\+00:00)$/.test(row.ConversionTime)
      ? Date.parse(row.ConversionTime)
      : NaN;
  if (Number.isNaN(time)) return 'OfflineConversionTimeInvalid';
  if (time > now) return 'FutureConversionTimeCannotBeSet';
  if (time < now - OFFLINE_LOOKBACK_MS) return 'OfflineConversionTimeOutOfWindow';
  if (
    !blank(row.ConversionValue) &&
    (typeof row.ConversionValue !== 'number' || !Number.isFinite(row.ConversionValue) || row.ConversionValue < 0)
  ) {
    return 'OfflineConversionValueInvalid';
  }
  if (
    !blank(row.ConversionCurrencyCode) &&
    (typeof row.ConversionCurrencyCode !== 'string' || !/^[A-Z]{3}$/.test(row.ConversionCurrencyCode))
  ) {
    return 'OfflineConversionCurrencyCodeInvalid';
  }
  const sha256 = (value: unknown) => typeof value === 'string' && /^[0-9a-f]{64}$/i.test(value);
  if (!blank(row.HashedEmailAddress) && !sha256(row.HashedEmailAddress)) return 'ConversionEmailAddressIsNotHashed';
  if (!blank(row.HashedPhoneNumber) && !sha256(row.HashedPhoneNumber)) return 'ConversionPhoneNumberIsNotHashed';
  return null;
}

/** A refusal of the whole request (ApiFaultDetail with an operation error): nothing in it is applied. */
const operationFault = (res: ServerResponse, error: OfflineError) =>
  json(res, 400, {
    TrackingId: token(''),
    Type: 'ApiFaultDetail',
    BatchErrors: [],
    OperationErrors: [
      { Code: OFFLINE_ERRORS[error][0], Details: null, ErrorCode: error, Message: OFFLINE_ERRORS[error][1], Type: 'OperationError' },
    ],
  });

/**
 * ApplyOfflineConversions: 1 to 1,000 items, each applied or refused on its own (PartialErrors by
 * Index; an empty array when all applied). Microsoft counts a click id + conversion time (+ goal) once:
 * a repeat is accepted without error and recorded as one more receipt of the same conversion.
 */
export async function applyOfflineConversions(store: SandboxStore, req: IncomingMessage, res: ServerResponse) {
  const failing = store.conversions.failing('microsoft');
  if (failing) return answerFailure(res, failing, microsoftFailure);
  const account = accountOf(req, res);
  if (!account) return;
  let body: { OfflineConversions?: unknown };
  try {
    body = JSON.parse((await readBody(req)) || '{}') as { OfflineConversions?: unknown };
  } catch {
    return adApiFault(res, 400, 100, 'NullRequest', 'The request message is null or could not be read.');
  }
  const items = body.OfflineConversions;
  if (!Array.isArray(items) || items.length === 0) return operationFault(res, 'OfflineConversionsNullOrEmpty');
  if (items.length > MAX_OFFLINE_CONVERSIONS) return operationFault(res, 'OfflineConversionBatchSizeExceedsLimit');
  const now = Date.now();
  const partialErrors = [];
  for (const [index, item] of items.entries()) {
    const error = offlineConversionError(item, now);
    if (error) {
      partialErrors.push({
        Code: OFFLINE_ERRORS[error][0],
        Details: null,
        ErrorCode: error,
        FieldPath: null,
        ForwardCompatibilityMap: null,
        Index: index,
        Message: OFFLINE_ERRORS[error][1],
        Type: 'BatchError',
      });
      continue;
    }
    const row = item as { MicrosoftClickId: string; ConversionName: string; ConversionTime: string };
    // One instant, however it was written: Microsoft compares times, not strings.
    const time = new Date(row.ConversionTime).toISOString();
    store.conversions.record(
      'microsoft',
      `${account.Id}|${row.ConversionName}|${row.MicrosoftClickId}|${time}`,
      row.ConversionName,
      item as Record<string, unknown>,
    );
    // Enhanced conversions: the hashed email and phone are matched by Microsoft's forms (sandbox/microsoft_ads/matching.ts).
    const hashed = item as { HashedEmailAddress?: unknown; HashedPhoneNumber?: unknown };
    const identifiers = (['HashedEmailAddress', 'HashedPhoneNumber'] as const)
      .filter((key) => typeof hashed[key] === 'string' && hashed[key] !== '')
      .map((key) => ({ key, value: String(hashed[key]) }));
    store.matches.judge('microsoft', row.ConversionName, row.ConversionName, identifiers, ['MicrosoftClickId']);
  }
  store.conversions.countCall('microsoft');
  return json(res, 200, { PartialErrors: partialErrors });
}

/** A switched-on transient failure as the Ad API answers it: CallRateExceeded (117, with Retry-After) or InternalError. */
function microsoftFailure(res: ServerResponse, status: 500 | 429 | 503) {
  const headers: Record<string, string> = status === 429 ? { 'Retry-After': '1' } : {};
  return json(
    res,
    status,
    {
      TrackingId: 'sandbox',
      Errors: [
        {
          Code: status === 429 ? 117 : 0,
          ErrorCode: status === 429 ? 'CallRateExceeded' : 'InternalError',
          Message: status === 429 ? 'You have exceeded the number of calls allowed.' : 'An internal error has occurred.',
        },
      ],
    },
    headers,
  );
}
