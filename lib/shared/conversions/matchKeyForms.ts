import type { ConversionEvent } from '@/lib/shared/conversions/event';

/**
 * The kinds of identifier a platform matches a conversion by, as the match-quality section counts them,
 * and how a platform's catalogue record says which fields of an event carry each one (as data: the
 * record is shared with the browser).
 */
export type MatchKey = 'email' | 'phone' | 'address' | 'clickId' | 'ipUserAgent' | 'consent';

export const MATCH_KEYS: MatchKey[] = ['email', 'phone', 'address', 'clickId', 'ipUserAgent', 'consent'];

type FieldsOf<Part extends 'user' | 'clickIds' | 'context'> = `${Part}.${Extract<keyof ConversionEvent[Part], string>}`;

/** A field of a conversion event: a hashed identifier's form, a click id, the context, or Google's clear-text address. */
export type EventField = FieldsOf<'user'> | FieldsOf<'clickIds'> | 'context.ip' | 'context.userAgent' | 'address';

/** A key is carried when any of these fields is set, or only when all of them are (an address with both names). */
export type MatchKeyForm = { anyOf: readonly EventField[] } | { allOf: readonly EventField[] };

/** Per key, the fields that carry it in the platform's form; consent is `true` where the platform carries it. */
export type MatchKeyForms = Partial<Record<Exclude<MatchKey, 'consent'>, MatchKeyForm>> & { consent?: true };

type Part = 'user' | 'clickIds' | 'context';
/** Each field's part and name, split once: match keys are read for every event delivered. */
const PATHS = new Map<EventField, [Part, string]>();

function valueOf(event: ConversionEvent, field: EventField): unknown {
  if (field === 'address') return event.address;
  let path = PATHS.get(field);
  if (!path) PATHS.set(field, (path = field.split('.') as [Part, string]));
  return (event[path[0]] as Record<string, unknown>)[path[1]];
}

/** Whether the event carries the key in this form. */
export function carries(event: ConversionEvent, form: MatchKeyForm): boolean {
  return 'anyOf' in form
    ? form.anyOf.some((field) => Boolean(valueOf(event, field)))
    : form.allOf.every((field) => Boolean(valueOf(event, field)));
}
