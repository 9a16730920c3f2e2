import { IDENTIFIER_LABELS, IDENTIFIERS, type ConversionMapping, type Identifier } from '@/lib/shared/conversions/conversion';

/**
 * A conversion's mapping as its form holds it, and the way to and from what the API takes; kept
 * apart from the fields (MappingFields), which load when a page shows them.
 */

/** A mapping as its form holds it: the amount as typed, the event name still in the box. */
export interface MappingDraft {
  events: string[];
  pendingEvent: string;
  valueMode: 'event' | 'fixed';
  amount: string;
  currency: string;
  identifiers: Identifier[];
}

export const NEW_MAPPING: MappingDraft = {
  events: [],
  pendingEvent: '',
  valueMode: 'event',
  amount: '',
  currency: 'USD',
  identifiers: [...IDENTIFIERS],
};

export function draftOf(mapping: ConversionMapping): MappingDraft {
  return {
    events: mapping.events,
    pendingEvent: '',
    valueMode: mapping.value.mode,
    amount: mapping.value.mode === 'fixed' ? String(mapping.value.amount) : '',
    currency: mapping.value.mode === 'fixed' ? mapping.value.currency : 'USD',
    identifiers: mapping.identifiers,
  };
}

const splitNames = (text: string) =>
  text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);

export const withNames = (events: string[], text: string) => [...new Set([...events, ...splitNames(text)])];

/** The mapping to send: a name left in the box counts, as if Add had been pressed; an empty amount is no number. */
export function mappingOf(draft: MappingDraft): ConversionMapping {
  const amount = draft.amount.trim() === '' ? Number.NaN : Number(draft.amount);
  return {
    events: withNames(draft.events, draft.pendingEvent),
    value: draft.valueMode === 'fixed' ? { mode: 'fixed', amount, currency: draft.currency.trim() } : { mode: 'event' },
    // In the order of the list, whatever order they were ticked in.
    identifiers: IDENTIFIERS.filter((identifier) => draft.identifiers.includes(identifier)),
  };
}

/** A mapping in words, as the review step and the configuration page show it. */
export function identifiersInWords(identifiers: Identifier[]): string {
  return identifiers.map((identifier) => IDENTIFIER_LABELS[identifier]).join(', ');
}
