/**
 * The sandbox's Conversions API (`POST /rest/conversionEvents`, Rest.li BATCH_CREATE with
 * `X-RestLi-Method: BATCH_CREATE`): 1 to 5,000 `elements`, each created (201) or refused (400) on its own in
 * the answer's `elements`, in order. Each names a Conversions API rule by URN, happened within the last 90 days
 * (`conversionHappenedAt`, epoch ms), names a member by `user.userIds` (idType from LinkedIn's enum; SHA256_EMAIL
 * a SHA-256 hex) or by `user.userInfo` (first and last name), and may carry `conversionValue` and `eventId`.
 * LinkedIn deduplicates by rule + eventId: a repeat is created again and counted once. Hashed emails are judged
 * by LinkedIn's form (sandbox/linkedin_ads/matching.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerFailure } from '@/sandbox/conversions';
import { LINKEDIN_RULES, linkedinError } from '@/sandbox/linkedin_ads/accounts';
import { personOf } from '@/sandbox/matching';
import { json, readBody } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

/** "Up to 5,000 events per batch" (Conversions API, batch). */
export const MAX_EVENTS = 5000;
/** "conversionHappenedAt … within the past 90 days." */
export const LOOKBACK_MS = 90 * 24 * 3600 * 1000;
/** The idType enum (Conversions API, UserIdType). */
export const ID_TYPES = ['SHA256_EMAIL', 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID', 'ACXIOM_ID', 'ORACLE_MOAT_ID'] as const;

type Element = Record<string, unknown>;

/** Why LinkedIn refuses one event, or null when it is created. */
export function eventError(item: unknown, now: number): string | null {
  if (!item || typeof item !== 'object') return 'The element must be an object.';
  const row = item as Element;
  const urn = typeof row.conversion === 'string' ? /^urn:lla:llaPartnerConversion:(\d+)$/.exec(row.conversion) : null;
  if (!urn) return 'conversion must be a urn:lla:llaPartnerConversion URN.';
  const rule = LINKEDIN_RULES.find((candidate) => String(candidate.id) === urn[1]);
  if (!rule) return `Conversion ${row.conversion as string} does not exist.`;
  if (rule.conversionMethod !== 'CONVERSIONS_API')
    return `Conversion ${rule.id} does not take Conversions API events (conversionMethod ${rule.conversionMethod}).`;
  const at = row.conversionHappenedAt;
  if (typeof at !== 'number' || !Number.isInteger(at) || at <= 0) return 'conversionHappenedAt must be epoch milliseconds.';
  if (at > now) return 'conversionHappenedAt cannot be in the future.';
  if (at < now - LOOKBACK_MS) return 'conversionHappenedAt must be within the past 90 days.';
  if (row.eventId !== undefined && (typeof row.eventId !== 'string' || row.eventId === '')) return 'eventId must be a non-empty string.';
  const value = row.conversionValue as Element | undefined;
  if (value !== undefined) {
    if (typeof value.currencyCode !== 'string' || !/^[A-Z]{3}$/.test(value.currencyCode))
      return 'conversionValue.currencyCode must be an ISO 4217 code.';
    if (typeof value.amount !== 'string' || !/^\d+(\.\d+)?$/.test(value.amount)) return 'conversionValue.amount must be a decimal string.';
  }
  const user = row.user as { userIds?: unknown; userInfo?: Element } | undefined;
  if (!user || typeof user !== 'object') return 'user is required.';
  const ids = user.userIds;
  if (ids !== undefined && !Array.isArray(ids)) return 'user.userIds must be an array.';
  for (const id of (ids as Element[] | undefined) ?? []) {
    if (!ID_TYPES.includes(id?.idType as (typeof ID_TYPES)[number])) return `Invalid idType ${String(id?.idType)}.`;
    if (typeof id.idValue !== 'string' || id.idValue === '') return 'idValue must be a non-empty string.';
    if (id.idType === 'SHA256_EMAIL' && !/^[0-9a-f]{64}$/i.test(id.idValue)) return 'SHA256_EMAIL must be a SHA-256 hash of the email.';
  }
  const info = user.userInfo;
  const named = info && typeof info.firstName === 'string' && info.firstName && typeof info.lastName === 'string' && info.lastName;
  if (((ids as unknown[] | undefined) ?? []).length === 0 && !named)
    return 'user must carry at least one userId, or userInfo with firstName and lastName.';
  return null;
}

export async function createConversionEvents(store: SandboxStore, req: IncomingMessage, res: ServerResponse) {
  const failing = store.conversions.failing('linkedin');
  if (failing) return answerFailure(res, failing, linkedinFailure);
  let body: { elements?: unknown };
  try {
    body = JSON.parse((await readBody(req)) || '{}') as { elements?: unknown };
  } catch {
    return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'The request body could not be read as JSON.', 100);
  }
  if (req.headers['x-restli-method'] !== 'BATCH_CREATE')
    return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'A batch of elements needs X-RestLi-Method: BATCH_CREATE.', 100);
  const items = body.elements;
  if (!Array.isArray(items) || items.length === 0)
    return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'elements must hold at least one event.', 100);
  if (items.length > MAX_EVENTS) return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', `A batch holds at most ${MAX_EVENTS} elements.`, 100);
  const now = Date.now();
  const answers = items.map((item) => {
    const error = eventError(item, now);
    if (error) return { status: 400, error: { status: 400, message: error } };
    const row = item as Element & { conversion: string; conversionHappenedAt: number; eventId?: string };
    const rule = LINKEDIN_RULES.find((candidate) => `urn:lla:llaPartnerConversion:${candidate.id}` === row.conversion)!;
    const ids = (row.user as { userIds?: Array<{ idType: string; idValue: string }> }).userIds ?? [];
    const emails = ids.filter((id) => id.idType === 'SHA256_EMAIL').map((id) => ({ key: 'SHA256_EMAIL', value: id.idValue }));
    const clicked = ids.some((id) => id.idType === 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID');
    const judged = store.matches.judge(
      'linkedin',
      String(rule.id),
      rule.name,
      emails,
      clicked ? ['LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID'] : [],
    );
    const member = clicked || (emails.length > 0 && emails.some((email) => personOf('linkedin', email.key, email.value)));
    const key = `${rule.accountId}|${rule.id}|${row.eventId ?? `${row.conversionHappenedAt}|${JSON.stringify(ids)}`}`;
    store.conversions.record('linkedin', key, String(rule.id), row, 'first', { attributable: member && judged !== undefined });
    return { status: 201 };
  });
  store.conversions.countCall('linkedin');
  return json(res, 200, { elements: answers });
}

/** A switched-on transient failure as LinkedIn answers it: a throttle (429) or a server error. */
function linkedinFailure(res: ServerResponse, status: 500 | 429 | 503) {
  return status === 429
    ? linkedinError(
        res,
        429,
        'TOO_MANY_REQUESTS',
        'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
        101,
      )
    : linkedinError(res, status, null, status === 503 ? 'Service Unavailable' : 'Internal Server Error');
}
