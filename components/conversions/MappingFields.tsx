import { useId, type KeyboardEvent } from 'react';
import styles from '@/components/conversions/conversions.module.css';
import { firstError } from '@/components/conversions/shared';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { IDENTIFIER_LABELS, IDENTIFIERS, type ConversionMapping, type Identifier } from '@/lib/shared/conversions/conversion';

/** A mapping as its form holds it: the amount as typed, the event name still in the box. */
export interface MappingDraft {
  events: string[];
  pendingEvent: string;
  valueMode: 'event' | 'fixed';
  amount: string;
  currency: string;
  identifiers: Identifier[];
}

export const NEW_MAPPING: MappingDraft = { events: [], pendingEvent: '', valueMode: 'event', amount: '', currency: 'USD', identifiers: [...IDENTIFIERS] };

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

const withNames = (events: string[], text: string) => [...new Set([...events, ...splitNames(text)])];

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

interface Props {
  draft: MappingDraft;
  onChange: (draft: MappingDraft) => void;
  /** Field errors keyed as the server keys them ('mapping.value.amount'). */
  errors: Record<string, string[]>;
}

function EventNames({ draft, onChange, error }: { draft: MappingDraft; onChange: (draft: MappingDraft) => void; error?: string }) {
  const id = useId();
  const add = () => onChange({ ...draft, events: withNames(draft.events, draft.pendingEvent), pendingEvent: '' });
  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add();
    } else if (event.key === 'Backspace' && draft.pendingEvent === '' && draft.events.length > 0) {
      onChange({ ...draft, events: draft.events.slice(0, -1) });
    }
  }
  return (
    <div className="field">
      <label htmlFor={`${id}-input`}>Event names to send</label>
      {draft.events.length > 0 && (
        <ul className={styles.tags} aria-label="Event names">
          {draft.events.map((name) => (
            <li key={name} className={styles.tag}>
              {name}
              <button
                type="button"
                className={styles.tagRemove}
                aria-label={`Remove ${name}`}
                onClick={() => onChange({ ...draft, events: draft.events.filter((other) => other !== name) })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className={styles.tagInput}>
        <input
          id={`${id}-input`}
          value={draft.pendingEvent}
          onChange={(event) => onChange({ ...draft, pendingEvent: event.target.value })}
          onKeyDown={onKeyDown}
          placeholder="Lead, Purchase …"
          maxLength={100}
          aria-invalid={Boolean(error)}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        />
        <Button type="button" variant="secondary" onClick={add} disabled={draft.pendingEvent.trim() === ''}>
          Add
        </Button>
      </div>
      <span id={`${id}-hint`} className={`muted ${styles.hint}`}>
        {draft.events.length === 0 && draft.pendingEvent.trim() === ''
          ? 'None listed: every event of the source is sent. Press Enter after each name.'
          : 'Only events with these names are sent (the case does not matter).'}
      </span>
      {error && (
        <span id={`${id}-error`} className="field__error">
          {error}
        </span>
      )}
    </div>
  );
}

/** Event names, value and identifiers of a conversion: the create flow's mapping step and the configuration page's edit form. */
export default function MappingFields({ draft, onChange, errors }: Props) {
  const id = useId();
  const identifiersError = firstError(errors, 'mapping.identifiers');
  const valueError = errors['mapping.value']?.[0];
  const toggle = (identifier: Identifier) =>
    onChange({
      ...draft,
      identifiers: draft.identifiers.includes(identifier) ? draft.identifiers.filter((other) => other !== identifier) : [...draft.identifiers, identifier],
    });
  return (
    <div className="stack">
      <EventNames draft={draft} onChange={onChange} error={firstError(errors, 'mapping.events')} />

      <fieldset className={styles.fieldset} aria-describedby={valueError ? `${id}-value-error` : undefined}>
        <legend className={styles.legend}>Value</legend>
        <ul className="checklist">
          <li>
            <label>
              <input type="radio" name={`${id}-value`} checked={draft.valueMode === 'event'} onChange={() => onChange({ ...draft, valueMode: 'event' })} />
              <span>The event&apos;s own value (and currency)</span>
            </label>
          </li>
          <li>
            <label>
              <input type="radio" name={`${id}-value`} checked={draft.valueMode === 'fixed'} onChange={() => onChange({ ...draft, valueMode: 'fixed' })} />
              <span>A fixed amount for every event</span>
            </label>
          </li>
        </ul>
        {draft.valueMode === 'fixed' && (
          <div className={styles.row}>
            <TextField
              label="Amount"
              type="number"
              inputMode="decimal"
              min={0}
              step="0.01"
              value={draft.amount}
              onChange={(event) => onChange({ ...draft, amount: event.target.value })}
              error={errors['mapping.value.amount']?.[0]}
            />
            <TextField
              label="Currency"
              value={draft.currency}
              onChange={(event) => onChange({ ...draft, currency: event.target.value.toUpperCase() })}
              maxLength={3}
              placeholder="USD"
              autoComplete="off"
              error={errors['mapping.value.currency']?.[0]}
            />
          </div>
        )}
        {valueError && (
          <span id={`${id}-value-error`} className="field__error">
            {valueError}
          </span>
        )}
      </fieldset>

      <fieldset className={styles.fieldset} aria-describedby={`${id}-identifiers-hint${identifiersError ? ` ${id}-identifiers-error` : ''}`}>
        <legend className={styles.legend}>Identifiers to send</legend>
        <span id={`${id}-identifiers-hint`} className={`muted ${styles.hint}`}>
          Each is sent only when the event has it. The more you send, the more conversions the platform can match.
        </span>
        <ul className="checklist">
          {IDENTIFIERS.map((identifier) => (
            <li key={identifier}>
              <label>
                <input type="checkbox" checked={draft.identifiers.includes(identifier)} onChange={() => toggle(identifier)} aria-invalid={Boolean(identifiersError)} />
                <span>{IDENTIFIER_LABELS[identifier]}</span>
              </label>
            </li>
          ))}
        </ul>
        {identifiersError && (
          <span id={`${id}-identifiers-error`} className="field__error">
            {identifiersError}
          </span>
        )}
      </fieldset>
    </div>
  );
}

/** A mapping in words, as the review step and the configuration page show it. */
export function identifiersInWords(identifiers: Identifier[]): string {
  return identifiers.map((identifier) => IDENTIFIER_LABELS[identifier]).join(', ');
}
