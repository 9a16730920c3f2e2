import { useId, type KeyboardEvent } from 'react';
import styles from '@/components/conversions/conversions.module.css';
import { firstError } from '@/components/ui/failures';
import { withNames, type MappingDraft } from '@/components/conversions/mapping';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { IDENTIFIER_LABELS, IDENTIFIERS, type Identifier } from '@/lib/shared/conversions/conversion';
import FieldError from '@/components/ui/FieldError';

interface Props {
  draft: MappingDraft;
  onChange: (draft: MappingDraft) => void;
  /** Field errors keyed as the server keys them ('mapping.value.amount'). */
  errors: Record<string, string[]>;
  /** False for a source whose rows are chosen by what it reads (a BigQuery table, Mixpanel events): no name filter. */
  eventNames?: boolean;
}

/**
 * A list of names typed one at a time (Enter or a comma adds one, Backspace in the empty box takes
 * the last back); a name left in the box is the caller's to count (`withNames`).
 */
export function NamesField({
  label,
  listLabel = label,
  names,
  pending,
  onChange,
  hint,
  placeholder,
  error,
}: {
  label: string;
  /** What the list of names added is called (for screen readers). */
  listLabel?: string;
  names: string[];
  pending: string;
  onChange: (names: string[], pending: string) => void;
  hint: string;
  placeholder: string;
  error?: string;
}) {
  const id = useId();
  const add = () => onChange(withNames(names, pending), '');
  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add();
    } else if (event.key === 'Backspace' && pending === '' && names.length > 0) {
      onChange(names.slice(0, -1), pending);
    }
  }
  return (
    <div className="field">
      <label htmlFor={`${id}-input`}>{label}</label>
      {names.length > 0 && (
        <ul className={styles.tags} aria-label={listLabel}>
          {names.map((name) => (
            <li key={name} className={styles.tag}>
              {name}
              <button
                type="button"
                className={styles.tagRemove}
                aria-label={`Remove ${name}`}
                onClick={() =>
                  onChange(
                    names.filter((other) => other !== name),
                    pending,
                  )
                }
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
          value={pending}
          onChange={(event) => onChange(names, event.target.value)}
          onKeyDown={onKeyDown}
          placeholder={placeholder}
          maxLength={100}
          aria-invalid={Boolean(error)}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        />
        <Button type="button" variant="secondary" onClick={add} disabled={pending.trim() === ''}>
          Add
        </Button>
      </div>
      <span id={`${id}-hint`} className={`muted ${styles.hint}`}>
        {hint}
      </span>
      <FieldError id={`${id}-error`} error={error} />
    </div>
  );
}

function EventNames({ draft, onChange, error }: { draft: MappingDraft; onChange: (draft: MappingDraft) => void; error?: string }) {
  const none = draft.events.length === 0 && draft.pendingEvent.trim() === '';
  return (
    <NamesField
      label="Event names to send"
      listLabel="Event names"
      names={draft.events}
      pending={draft.pendingEvent}
      onChange={(events, pendingEvent) => onChange({ ...draft, events, pendingEvent })}
      hint={
        none
          ? 'None listed: every event of the source is sent. Press Enter after each name.'
          : 'Only events with these names are sent (the case does not matter).'
      }
      placeholder="Lead, Purchase …"
      error={error}
    />
  );
}

/** Event names, value and identifiers of a conversion: the create flow's mapping step and the configuration page's edit form. */
export default function MappingFields({ draft, onChange, errors, eventNames = true }: Props) {
  const id = useId();
  const identifiersError = firstError(errors, 'mapping.identifiers');
  const valueError = errors['mapping.value']?.[0];
  const toggle = (identifier: Identifier) =>
    onChange({
      ...draft,
      identifiers: draft.identifiers.includes(identifier)
        ? draft.identifiers.filter((other) => other !== identifier)
        : [...draft.identifiers, identifier],
    });
  return (
    <div className="stack">
      {eventNames && <EventNames draft={draft} onChange={onChange} error={firstError(errors, 'mapping.events')} />}

      <fieldset className={styles.fieldset} aria-describedby={valueError ? `${id}-value-error` : undefined}>
        <legend className={styles.legend}>Value</legend>
        <ul className="checklist">
          <li>
            <label>
              <input
                type="radio"
                name={`${id}-value`}
                checked={draft.valueMode === 'event'}
                onChange={() => onChange({ ...draft, valueMode: 'event' })}
              />
              <span>The event&apos;s own value (and currency)</span>
            </label>
          </li>
          <li>
            <label>
              <input
                type="radio"
                name={`${id}-value`}
                checked={draft.valueMode === 'fixed'}
                onChange={() => onChange({ ...draft, valueMode: 'fixed' })}
              />
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
        <FieldError id={`${id}-value-error`} error={valueError} />
      </fieldset>

      <fieldset
        className={styles.fieldset}
        aria-describedby={`${id}-identifiers-hint${identifiersError ? ` ${id}-identifiers-error` : ''}`}
      >
        <legend className={styles.legend}>Identifiers to send</legend>
        <span id={`${id}-identifiers-hint`} className={`muted ${styles.hint}`}>
          Each is sent only when the event has it. The more you send, the more conversions the platform can match.
        </span>
        <ul className="checklist">
          {IDENTIFIERS.map((identifier) => (
            <li key={identifier}>
              <label>
                <input
                  type="checkbox"
                  checked={draft.identifiers.includes(identifier)}
                  onChange={() => toggle(identifier)}
                  aria-invalid={Boolean(identifiersError)}
                />
                <span>{IDENTIFIER_LABELS[identifier]}</span>
              </label>
            </li>
          ))}
        </ul>
        <FieldError id={`${id}-identifiers-error`} error={identifiersError} />
      </fieldset>
    </div>
  );
}
