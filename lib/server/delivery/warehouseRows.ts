import type { ColumnMapping, WarehouseSource } from '@/lib/shared/conversions/conversion';
import { conversionEventSchema, type ConversionEvent } from '@/lib/shared/conversions/event';
import { defined, deriveEventId, hashPerson, maskEmail } from '@/lib/server/delivery/normalize';

/**
 * A warehouse row (a BigQuery row, a Mixpanel event's properties) → the conversion event it stands
 * for, through the source's column mapping. Identifiers are hashed here (a column that already holds
 * SHA-256 hex is passed through), so nothing raw is queued or stored. A row that makes no valid event
 * is answered with the reason, in words the delivery log shows.
 */

export type MappedRow = { ok: true; event: ConversionEvent } | { ok: false; id: string; reason: string };

/** Text of a cell, or undefined when it is empty. */
function text(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  const result = (typeof value === 'object' ? JSON.stringify(value) : String(value)).trim();
  return result === '' ? undefined : result;
}

/**
 * A time as Unix seconds: a TIMESTAMP's text, a DATE (midnight UTC), a DATETIME (taken as UTC), or a
 * number of seconds (milliseconds when it is that large, as Mixpanel and JavaScript write them).
 */
export function secondsOf(value: unknown): number | null {
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()))) {
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0) return null;
    return Math.floor(number >= 1e11 ? number / 1000 : number);
  }
  const raw = text(value);
  if (!raw) return null;
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(raw)
    ? `${raw}T00:00:00Z`
    : /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(raw)
      ? `${raw.replace(' ', 'T')}Z`
      : raw.replace(' UTC', 'Z');
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/**
 * A cell as a refusal may quote it. Reasons are stored in the delivery log and shown in the preview,
 * and a column mapped by mistake may hold an email, a phone number or a name: only a short number
 * (an amount) or a date is quoted; other digits are masked ("+•• •• •••• ••••"), other text is
 * described by its length.
 */
function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return 'nothing';
  const textValue = typeof value === 'object' && 'value' in value ? String((value as { value: unknown }).value) : String(value);
  if (/^-?\d{1,6}([.,]\d{1,4})?$/.test(textValue) || /^\d{4}-\d{2}-\d{2}([T ][\d:.]{2,15}(Z|[+-]\d{2}:?\d{2})?)?$/.test(textValue))
    return JSON.stringify(textValue);
  // A phone number or an id: its shape, each digit masked.
  if (/^[\d\s.,:+\-/()]{1,40}$/.test(textValue)) return `${JSON.stringify(textValue.replace(/\d/g, '•'))} (masked)`;
  return `text of ${textValue.length} character${textValue.length === 1 ? '' : 's'}`;
}

/** A row's cell for a field, through the mapping. */
const cellOf = (row: Record<string, unknown>, columns: ColumnMapping, field: keyof ColumnMapping) =>
  columns[field] === undefined ? undefined : row[columns[field]!];

/** Maps one row; `sourceKey` keeps two sources' derived ids apart. */
export function rowToEvent(
  row: Record<string, unknown>,
  source: Pick<WarehouseSource, 'columns' | 'eventName' | 'defaultCountry' | 'defaultConsent'>,
  sourceKey: string,
): MappedRow {
  const { columns } = source;
  const cell = (field: keyof ColumnMapping) => cellOf(row, columns, field);
  const email = text(cell('email'));
  const rawCountry = text(cell('countryCode'));
  const rawGender = text(cell('gender'))?.toLowerCase();
  const birthCell = cell('dateOfBirth');
  // BigQuery's client gives a DATE as { value: 'YYYY-MM-DD' }.
  const rawBirth = text(typeof birthCell === 'object' && birthCell !== null && 'value' in birthCell ? birthCell.value : birthCell);
  const { user, address, withheld } = hashPerson(
    {
      email,
      phone: text(cell('phone')),
      firstName: text(cell('firstName')),
      lastName: text(cell('lastName')),
      externalId: text(cell('externalId')),
      city: text(cell('city')),
      state: text(cell('state')),
      postalCode: text(cell('postalCode')),
      // Only values of the documented forms: a country code, f / m, a date (a DATE column, or a TIMESTAMP's day).
      countryCode: rawCountry && /^([A-Za-z]{2}|[0-9a-fA-F]{64})$/.test(rawCountry) ? rawCountry : undefined,
      gender: rawGender && /^(f|m|female|male|[0-9a-f]{64})$/.test(rawGender) ? rawGender : undefined,
      dateOfBirth: rawBirth && /^\d{4}-\d{2}-\d{2}/.test(rawBirth) ? rawBirth.slice(0, 10) : undefined,
    },
    { defaultCountry: source.defaultCountry, sourceLabel: 'source' },
  );
  const consent = source.defaultConsent && Object.keys(source.defaultConsent).length > 0 ? source.defaultConsent : undefined;
  const time = secondsOf(cell('eventTime'));
  const name = text(cell('eventName')) ?? source.eventName;
  const rawValue = text(cell('value'));
  const value = rawValue === undefined ? null : Number(rawValue);
  const rawCurrency = text(cell('currency'))?.toUpperCase();
  const fbclid = text(cell('fbclid'));
  const clickIds = defined({
    gclid: text(cell('gclid')),
    fbc: text(cell('fbc')) ?? (fbclid && time !== null ? `fb.1.${time * 1000}.${fbclid}` : undefined),
    fbp: text(cell('fbp')),
    msclkid: text(cell('msclkid')),
    li_fat_id: text(cell('li_fat_id')),
    ttclid: text(cell('ttclid')),
    ttp: text(cell('ttp')),
  });
  const given = text(cell('eventId'));
  // Derived from what the row holds (hashed), so reading the row again gives the same event.
  const id =
    given ??
    deriveEventId(sourceKey, {
      name,
      time,
      value: rawValue ?? null,
      currency: rawCurrency ?? null,
      user,
      clickIds: defined({ ...clickIds, fbclid }),
    });
  const fail = (reason: string): MappedRow => ({ ok: false, id: id.slice(0, 100), reason });

  if (columns.eventTime === undefined) return fail('No event time: map the column that holds when it happened.');
  if (time === null) return fail(`No event time: the ${columns.eventTime} column is empty or holds no time (${shown(cell('eventTime'))}).`);
  if (value !== null && (!Number.isFinite(value) || value < 0))
    return fail(`The value is no amount: ${columns.value} holds ${shown(rawValue)}.`);
  if (rawCurrency !== undefined && !/^[A-Z]{3}$/.test(rawCurrency))
    return fail(`The currency is no three-letter code: ${columns.currency} holds ${shown(rawCurrency)}.`);
  const event: ConversionEvent = {
    id,
    name,
    time,
    value,
    currency: rawCurrency ?? null,
    user,
    ...(address ? { address } : {}),
    ...(consent ? { consent } : {}),
    ...(withheld.length > 0 ? { withheld } : {}),
    clickIds,
    context: { actionSource: 'system_generated' },
    ...defined({ maskedEmail: maskEmail(email) }),
  };
  const checked = conversionEventSchema.safeParse(event);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return fail(`The row makes no valid event: ${issue.path.join('.') || 'event'} ${issue.message.toLowerCase()}.`);
  }
  return { ok: true, event: checked.data };
}
