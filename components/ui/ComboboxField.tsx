import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import styles from '@/components/ui/combobox.module.css';
import FieldError from '@/components/ui/FieldError';
import { plural } from '@/lib/shared/plural';

interface ComboboxFieldProps {
  id?: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly string[];
  /** A few words after an option's name in the list (a time zone's offset). */
  describe?: (option: string) => string;
  placeholder?: string;
  /** What one option is ("time zone"): the count read to screen readers as the list narrows. */
  noun: string;
  error?: string;
  required?: boolean;
}

/** "europe paris", "Paris", "new york" all find their option: case, spaces, underscores and slashes aside. */
const searchable = (text: string) =>
  text
    .toLowerCase()
    .replace(/[\s_/]+/g, ' ')
    .trim();

/**
 * A text field with a list of options that narrows as one types (the WAI-ARIA combobox with list
 * autocomplete): ↓ and ↑ move through the list, Enter picks, Escape closes it, the button beside it opens
 * the whole list for a mouse or a finger. What is typed stays the field's value until an option is picked;
 * typed exactly (any case), it becomes that option's spelling when the field is left. The form's schema
 * still decides what is valid.
 */
export default function ComboboxField({
  id,
  label,
  value,
  onChange,
  options,
  describe,
  placeholder,
  noun,
  error,
  required,
}: ComboboxFieldProps) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const listId = `${inputId}-list`;
  const [open, setOpen] = useState(false);
  // Narrowed by what is typed; the whole list when opened from the button or the arrow keys.
  const [query, setQuery] = useState<string | null>(null);
  const [active, setActive] = useState(-1);
  const list = useRef<HTMLUListElement>(null);

  const shown = useMemo(() => {
    if (query === null) return options;
    const wanted = searchable(query);
    return options.filter((option) => searchable(option).includes(wanted));
  }, [options, query]);

  useEffect(() => {
    if (!open || active < 0) return;
    list.current?.children[active]?.scrollIntoView({ block: 'nearest' });
  }, [open, active]);

  function openWhole() {
    setQuery(null);
    setActive(Math.max(options.indexOf(value), 0));
    setOpen(true);
  }

  function pick(option: string) {
    onChange(option);
    setOpen(false);
    setQuery(null);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    const last = shown.length - 1;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (event.altKey) return event.key === 'ArrowDown' ? openWhole() : setOpen(false);
      if (!open) return openWhole();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current < 0 ? (step > 0 ? 0 : last) : Math.min(Math.max(current + step, 0), last)));
    } else if (event.key === 'Enter' && open && shown[active] !== undefined) {
      // Picks the option instead of sending the form.
      event.preventDefault();
      pick(shown[active]!);
    } else if (event.key === 'Escape' && open) {
      // Closes the list only, not a dialog around the field.
      event.preventDefault();
      event.stopPropagation();
      setOpen(false);
    }
  }

  function onBlur() {
    setOpen(false);
    const exact = options.find((option) => option.toLowerCase() === value.trim().toLowerCase());
    if (exact && exact !== value) onChange(exact);
  }

  const expanded = open && shown.length > 0;
  const activeId = expanded && shown[active] !== undefined ? `${listId}-${active}` : undefined;
  const errorId = `${inputId}-error`;
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <div className={styles.box}>
        <input
          id={inputId}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={expanded}
          aria-controls={listId}
          aria-activedescendant={activeId}
          aria-invalid={Boolean(error)}
          aria-describedby={error ? errorId : undefined}
          autoComplete="off"
          spellCheck={false}
          placeholder={placeholder}
          required={required}
          value={value}
          onChange={(event) => {
            onChange(event.target.value);
            setQuery(event.target.value);
            setActive(-1);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
          onBlur={onBlur}
        />
        {/*
          Out of the tab order, as the pattern has it: the keyboard opens the list with ↓. Its name and the list's do
          not repeat the field's label, so the label names the field alone.
        */}
        <button
          type="button"
          className={styles.toggle}
          tabIndex={-1}
          aria-label="Show the whole list"
          aria-expanded={expanded}
          aria-controls={listId}
          onMouseDown={(event) => event.preventDefault()}
          onClick={() => {
            if (expanded) setOpen(false);
            else openWhole();
            document.getElementById(inputId)?.focus();
          }}
        >
          ▾
        </button>
        <ul ref={list} id={listId} role="listbox" aria-label="Suggestions" className={styles.list} hidden={!expanded}>
          {expanded &&
            shown.map((option, index) => (
              <li
                key={option}
                id={`${listId}-${index}`}
                role="option"
                aria-selected={index === active}
                className={styles.option}
                // Keeps the focus in the field, so picking does not blur it first.
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => pick(option)}
              >
                {option}
                {describe && <span className={`muted ${styles.describe}`}> {describe(option)}</span>}
              </li>
            ))}
        </ul>
      </div>
      <span className="sr-only" role="status">
        {open && query !== null ? plural(shown.length, noun) : ''}
      </span>
      <FieldError id={errorId} error={error} />
    </div>
  );
}
