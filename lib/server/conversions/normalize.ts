import { createHash } from 'node:crypto';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { SubmittedEvent } from '@/lib/shared/schemas/submissions';

/**
 * Personal identifiers are normalised the way the ad platforms match them, then SHA-256 hashed,
 * before anything is stored or queued (docs/PRODUCT.md, "Conversions"). A value that already is a
 * 64-hex SHA-256 is passed through, lowercased. Click ids, IP and user agent are never hashed.
 */

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** Email: trimmed and lowercased. */
export const normalizeEmail = (value: string) => value.trim().toLowerCase();

/**
 * Phone: digits only, with the country code. "+1 (650) 555-1212" and "001 650 555 1212" both give
 * 16505551212; a number written without + or 00 is taken to include its country code already.
 */
export function normalizePhone(value: string): string {
  const trimmed = value.trim();
  const digits = trimmed.replace(/\D/g, '');
  return !trimmed.startsWith('+') && digits.startsWith('00') ? digits.slice(2) : digits;
}

/** Names: lowercase, without punctuation, symbols or spaces; letters of any script kept (UTF-8). */
export const normalizeName = (value: string) =>
  value
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}\s]/gu, '');

/** The hash of a normalised value; an existing SHA-256 hex is not hashed again; empty → undefined. */
export function hashIdentifier(value: string | undefined, normalize: (value: string) => string): string | undefined {
  if (value === undefined) return undefined;
  if (SHA256_HEX.test(value.trim())) return value.trim().toLowerCase();
  const normalized = normalize(value);
  return normalized ? sha256(normalized) : undefined;
}

/** j***@example.com: enough for a marketer to recognise a row, never the address. */
export function maskEmail(value: string | undefined): string | undefined {
  if (!value || SHA256_HEX.test(value.trim())) return undefined;
  const email = normalizeEmail(value);
  const at = email.lastIndexOf('@');
  if (at < 1) return undefined;
  return `${email[0]}***${email.slice(at)}`;
}

/** Drops undefined values, so derived ids and stored events do not depend on absent keys. */
export function defined<T extends Record<string, unknown>>(record: T): Partial<T> {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value !== undefined && value !== '') kept[key] = value;
  }
  return kept as Partial<T>;
}

/** A JSON text with sorted keys: the same content always gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The event id: the caller's, else derived from what was submitted (after hashing), so a client
 * that retries the same request sends the same event, and the platforms deduplicate it.
 */
export function deriveEventId(source: string, content: Record<string, unknown>): string {
  return `sb_${sha256(`${source}\n${canonical(content)}`).slice(0, 32)}`;
}

export interface IngestContext {
  /** What the event came from ("app:{id}"): two apps sending the same payload are two events. */
  source: string;
  receivedAt: Date;
  ip?: string;
  userAgent?: string;
}

/** A submitted event → the hashed event that is queued. Nothing raw survives this function. */
export function toConversionEvent(input: SubmittedEvent, context: IngestContext): ConversionEvent {
  const user = defined({
    email: hashIdentifier(input.email, normalizeEmail),
    phone: hashIdentifier(input.phone, normalizePhone),
    firstName: hashIdentifier(input.firstName, normalizeName),
    lastName: hashIdentifier(input.lastName, normalizeName),
    externalId: hashIdentifier(input.externalId, (value) => value.trim()),
  });
  const clickIds = defined({
    gclid: input.gclid,
    gbraid: input.gbraid,
    wbraid: input.wbraid,
    fbc: input.fbc ?? (input.fbclid ? `fb.1.${context.receivedAt.getTime()}.${input.fbclid}` : undefined),
    fbp: input.fbp,
    msclkid: input.msclkid,
  });
  const value = input.value ?? null;
  const currency = input.currency ?? null;
  const time = input.occurredAt ? Math.floor(Date.parse(input.occurredAt) / 1000) : null;
  // What identifies the event as submitted: the hashed form, never the clear one. fbclid rather than
  // the fbc built from it, whose timestamp is ours.
  const content = {
    name: input.event,
    time,
    value,
    currency,
    user,
    clickIds: defined({ ...clickIds, fbc: input.fbc, fbclid: input.fbclid }),
    pageUrl: input.pageUrl,
  };
  return {
    id: input.eventId ?? deriveEventId(context.source, content),
    name: input.event,
    time: time ?? Math.floor(context.receivedAt.getTime() / 1000),
    value,
    currency,
    user,
    clickIds,
    context: defined({
      ip: input.ip ?? context.ip,
      userAgent: input.userAgent ?? context.userAgent,
      pageUrl: input.pageUrl,
      actionSource: input.actionSource ?? (input.pageUrl ? 'website' : 'system_generated'),
    }) as ConversionEvent['context'],
    ...defined({ maskedEmail: maskEmail(input.email) }),
  };
}
