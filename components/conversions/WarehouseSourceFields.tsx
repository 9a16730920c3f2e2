import { useEffect, useId, useRef, useState } from 'react';
import { ScheduleFields } from '@/components/connections/ConnectionFields';
import SourceDefaultsFields from '@/components/conversions/SourceDefaultsFields';
import styles from '@/components/conversions/conversions.module.css';
import { NamesField } from '@/components/conversions/MappingFields';
import { FailureAlert, fieldErrorsOf, firstError, formFailureOf } from '@/components/ui/failures';
import { bytesInWords } from '@/components/conversions/warehouseDefaults';
import { warehouseSourceOf, type WarehouseDraft } from '@/components/conversions/warehouseDraft';
import Button from '@/components/ui/Button';
import SelectField from '@/components/ui/SelectField';
import Spinner from '@/components/ui/Spinner';
import TextField from '@/components/ui/TextField';
import { COLUMN_FIELD_LABELS, type ColumnField } from '@/lib/shared/conversions/conversion';
import type { Integration } from '@/lib/shared/integrations/platforms';
import { usePreviewWarehouseSourceMutation, type WarehousePreview } from '@/store/conversionsApi';
import ScrollRegion from '@/components/ui/ScrollRegion';
import { plural } from '@/lib/shared/plural';

/**
 * What a BigQuery or Mixpanel conversion reads and how its rows become events: the table or SELECT
 * (or the Mixpanel events), the cursor, the byte limit, the schedule, which column fills each field,
 * and a preview of the first 20 rows exactly as they will be sent. Used by the create flow's source
 * step and the configuration page's edit form; loaded beside those pages.
 */

interface Props {
  orgId: string;
  plan: unknown;
  /** The BigQuery or Mixpanel destination whose login reads. */
  destination: Integration;
  draft: WarehouseDraft;
  onChange: (draft: WarehouseDraft) => void;
  /** Field errors keyed as the server keys them ('source.columns.email'). */
  errors: Record<string, string[]>;
  onErrors: (errors: Record<string, string[]>) => void;
  /** The ad destination chosen (if any): the preview applies its checks, so "Will be sent" is its promise. */
  sendsTo?: string;
}

/** The fields of the mapping, grouped as a marketer thinks of them. */
const FIELD_GROUPS: Array<{ title: string; hint: string; fields: ColumnField[] }> = [
  {
    title: 'The event',
    hint: 'The event time is required. Without an event id column, the id is derived from the row, so a row read again is the same event.',
    fields: ['eventTime', 'eventId', 'eventName'],
  },
  {
    title: 'Who converted',
    hint: 'Hashed with SHA-256 before they are queued; a column that already holds SHA-256 hex is sent as it is.',
    fields: ['email', 'phone', 'firstName', 'lastName', 'externalId'],
  },
  {
    title: 'Where they live, and who they are',
    hint: 'Hashed the same way. A country code (US, GB …) also reads phones written without one; gender is f or m, a date of birth YYYY-MM-DD.',
    fields: ['city', 'state', 'postalCode', 'countryCode', 'dateOfBirth', 'gender'],
  },
  {
    title: 'Click ids',
    hint: 'Sent as they are, never hashed.',
    fields: ['gclid', 'fbclid', 'fbc', 'fbp', 'msclkid', 'li_fat_id', 'ttclid', 'ttp'],
  },
  { title: 'Value', hint: 'A number, and a three-letter currency code.', fields: ['value', 'currency'] },
];

/** Errors keyed under the source ('source.schedule.every') as the nested fields key them ('schedule.every'). */
const within = (errors: Record<string, string[]>, prefix: string) =>
  Object.fromEntries(
    Object.entries(errors).flatMap(([key, messages]) => (key.startsWith(`${prefix}.`) ? [[key.slice(prefix.length + 1), messages]] : [])),
  );

const shortHash = (hash: string | undefined) => (hash ? `${hash.slice(0, 8)}…` : '');

function PreviewTable({ preview, platform, checked }: { preview: WarehousePreview; platform: 'bigquery' | 'mixpanel'; checked: boolean }) {
  if (preview.rows.length === 0) {
    return (
      <p className="muted">
        {platform === 'bigquery' ? 'The query returned no rows yet.' : 'No events of these names in the last 7 days.'}
      </p>
    );
  }
  const sendable = preview.rows.filter((row) => row.event).length;
  return (
    <div className="stack" style={{ gap: '0.4rem' }}>
      <p className="muted" style={{ margin: 0 }} role="status">
        {sendable} of the first {plural(preview.rows.length, 'row')} {sendable === 1 ? 'makes' : 'make'} an event; hashed identifiers show
        the start of their hash.
        {checked
          ? ' Checked as the destination will check them.'
          : ' The ad platform’s own checks (how old an event may be, an identifier it can match) apply once you choose the destination.'}
      </p>
      <ScrollRegion label="Preview of the first rows (scrolls sideways)" className={styles.preview}>
        <table aria-label="Preview of the first rows">
          <thead>
            <tr>
              <th scope="col">Event id</th>
              <th scope="col">Time (UTC)</th>
              <th scope="col">Event</th>
              <th scope="col">Email</th>
              <th scope="col">Other identifiers</th>
              <th scope="col">Value</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {preview.rows.map(({ id, event, problem }, index) => (
              <tr key={`${id}-${index}`}>
                <td>{id}</td>
                <td>{event ? new Date(event.time * 1000).toISOString().slice(0, 16).replace('T', ' ') : '—'}</td>
                <td>{event?.name ?? '—'}</td>
                <td>{event?.user.email ? `${event.maskedEmail ?? ''} · ${shortHash(event.user.email)}` : '—'}</td>
                <td className={styles.wrap}>
                  {event
                    ? [
                        ...(['phone', 'firstName', 'lastName', 'externalId'] as const).flatMap((key) =>
                          event.user[key] ? [`${COLUMN_FIELD_LABELS[key]} ${shortHash(event.user[key])}`] : [],
                        ),
                        ...Object.entries(event.clickIds).map(([key, value]) => `${key} ${value}`),
                      ].join(', ') || '—'
                    : '—'}
                </td>
                <td>{event?.value != null ? `${event.value} ${event.currency ?? ''}`.trim() : '—'}</td>
                <td className={problem ? styles.wrap : undefined}>
                  {problem ? <span style={{ color: 'var(--danger)' }}>Not sent: {problem}</span> : 'Will be sent'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </div>
  );
}

export default function WarehouseSourceFields({ orgId, plan, destination, draft, onChange, errors, onErrors, sendsTo }: Props) {
  const id = useId();
  const [preview, previewing] = usePreviewWarehouseSourceMutation();
  const [shown, setShown] = useState<WarehousePreview | null>(null);
  // Whether the preview shown was checked against the chosen ad destination.
  const [shownChecked, setShownChecked] = useState(false);
  const [columns, setColumns] = useState<string[]>([]);
  const bigquery = draft.type === 'bigquery';
  const update = (changes: Partial<WarehouseDraft>) => onChange({ ...draft, ...changes });
  const setColumn = (field: ColumnField, column: string) => update({ columns: { ...draft.columns, [field]: column } });
  const columnList = columns.length > 0 ? `${id}-columns` : undefined;

  // What the form holds now: a preview's answer lands on it, not on the draft it was asked with.
  const latest = useRef(draft);
  useEffect(() => {
    latest.current = draft;
  }, [draft]);

  /**
   * Loads the columns and the first rows, in one preview: the server fills the fields left empty from
   * columns of their usual names before it maps the rows (and before BigQuery bills the query).
   */
  async function load() {
    const result = await preview({ orgId, source: warehouseSourceOf(draft), suggest: true, ...(sendsTo ? { sendsTo } : {}) });
    if ('error' in result) {
      onErrors(fieldErrorsOf(result.error));
      setShown(null);
      return;
    }
    setColumns(result.data.columns.map((column) => column.name));
    setShown(result.data);
    setShownChecked(Boolean(sendsTo));
    // Only fields still empty take the suggestion: what was typed meanwhile stays.
    const current = latest.current;
    const { columns: suggested, cursorColumn } = result.data.mapping;
    const columns = { ...current.columns };
    for (const [field, column] of Object.entries(suggested) as Array<[ColumnField, string]>) columns[field] ||= column;
    onChange({ ...current, columns, cursorColumn: current.cursorColumn || (bigquery ? cursorColumn : current.cursorColumn) });
  }

  const failure = formFailureOf(previewing.error);

  return (
    <div className="stack" role="group" aria-label={bigquery ? 'What to read from BigQuery' : 'What to read from Mixpanel'}>
      {bigquery ? (
        <>
          {destination.accounts.length > 0 && (
            <SelectField
              id={`${id}-project`}
              label="BigQuery project (runs and bills the query)"
              value={draft.projectId}
              onChange={(projectId) => update({ projectId })}
              options={destination.accounts.map((account) => ({
                value: account.id,
                label: account.name && account.name !== account.id ? `${account.name} · ${account.id}` : account.id,
              }))}
              placeholder="Choose a project"
              error={firstError(errors, 'source.projectId')}
            />
          )}
          <fieldset className={styles.fieldset}>
            <legend className={styles.legend}>Read</legend>
            <ul className="checklist">
              <li>
                <label>
                  <input type="radio" name={`${id}-mode`} checked={draft.mode === 'table'} onChange={() => update({ mode: 'table' })} />
                  <span>A table</span>
                </label>
              </li>
              <li>
                <label>
                  <input type="radio" name={`${id}-mode`} checked={draft.mode === 'sql'} onChange={() => update({ mode: 'sql' })} />
                  <span>Your own SELECT</span>
                </label>
              </li>
            </ul>
          </fieldset>
          {draft.mode === 'table' ? (
            <TextField
              id={`${id}-table`}
              label="Table"
              value={draft.table}
              onChange={(event) => update({ table: event.target.value })}
              placeholder="project.dataset.table"
              autoComplete="off"
              spellCheck={false}
              error={firstError(errors, 'source.table')}
            />
          ) : (
            <div className="field">
              <label htmlFor={`${id}-sql`}>SELECT statement</label>
              <textarea
                id={`${id}-sql`}
                value={draft.sql}
                onChange={(event) => update({ sql: event.target.value })}
                rows={6}
                spellCheck={false}
                placeholder={'SELECT lead_id, email, closed_at, updated_at\nFROM `project.crm.leads`\nWHERE stage = "won"'}
                aria-invalid={Boolean(firstError(errors, 'source.sql'))}
                aria-describedby={`${id}-sql-hint${firstError(errors, 'source.sql') ? ` ${id}-sql-error` : ''}`}
                style={{ fontFamily: 'var(--mono, monospace)' }}
              />
              <span id={`${id}-sql-hint`} className={`muted ${styles.hint}`}>
                One SELECT (or WITH … SELECT), in GoogleSQL. Each read wraps it and adds the cursor condition.
              </span>
              {firstError(errors, 'source.sql') && (
                <span id={`${id}-sql-error`} className="field__error">
                  {firstError(errors, 'source.sql')}
                </span>
              )}
            </div>
          )}
          <div className={styles.row}>
            <TextField
              id={`${id}-cursor`}
              label="Cursor column"
              value={draft.cursorColumn}
              list={columnList}
              onChange={(event) => update({ cursorColumn: event.target.value })}
              placeholder="updated_at"
              autoComplete="off"
              spellCheck={false}
              aria-describedby={`${id}-cursor-hint`}
              error={firstError(errors, 'source.cursorColumn')}
            />
            <TextField
              id={`${id}-limit`}
              label="Byte limit per read (GB)"
              type="number"
              inputMode="decimal"
              min={0.01}
              step="any"
              value={draft.limitGb}
              onChange={(event) => update({ limitGb: event.target.value })}
              aria-describedby={`${id}-limit-hint`}
              error={firstError(errors, 'source.maximumBytesBilled')}
            />
          </div>
          <span id={`${id}-cursor-hint`} className={`muted ${styles.hint}`}>
            Each read takes the rows whose cursor is at or past the last one read, in its order — usually when the row last changed.
          </span>
          <span id={`${id}-limit-hint`} className={`muted ${styles.hint}`}>
            BigQuery&apos;s maximumBytesBilled: a read that would bill more stops with BigQuery&apos;s error instead.
            {shown?.bytesProcessed != null &&
              ` Reading everything now processes ${bytesInWords(shown.bytesProcessed)} (BigQuery bills at least 10 MB a query).`}
          </span>
        </>
      ) : (
        <NamesField
          label="Mixpanel events to read"
          names={draft.events}
          pending={draft.pendingEvent}
          onChange={(events, pendingEvent) => update({ events, pendingEvent })}
          hint="Read through Mixpanel's Export API by day; the first read takes the last 7 days. Preview with none listed to see the project's events."
          placeholder="Subscription Renewed …"
          error={firstError(errors, 'source.events')}
        />
      )}

      <TextField
        id={`${id}-event-name`}
        label="Event name when no column gives one"
        value={draft.eventName}
        onChange={(event) => update({ eventName: event.target.value })}
        maxLength={100}
        error={firstError(errors, 'source.eventName')}
      />

      <SourceDefaultsFields
        id={`${id}-defaults`}
        country={draft.defaultCountry ?? ''}
        onCountry={(defaultCountry) => update({ defaultCountry })}
        consent={draft.defaultConsent ?? {}}
        onConsent={(defaultConsent) => update({ defaultConsent })}
        countryError={firstError(errors, 'source.defaultCountry')}
      />

      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>{bigquery ? 'Which column fills each field' : 'Which property fills each field'}</legend>
        {FIELD_GROUPS.map((group) => (
          <div key={group.title} className="stack" style={{ gap: '0.25rem' }}>
            <h3 className={styles.groupTitle}>{group.title}</h3>
            <span className={`muted ${styles.hint}`}>{group.hint}</span>
            <div className={styles.row}>
              {group.fields.map((field) => (
                <TextField
                  key={field}
                  id={`${id}-column-${field}`}
                  label={field === 'eventTime' ? `${COLUMN_FIELD_LABELS[field]} (required)` : COLUMN_FIELD_LABELS[field]}
                  value={draft.columns[field] ?? ''}
                  list={columnList}
                  onChange={(event) => setColumn(field, event.target.value)}
                  autoComplete="off"
                  spellCheck={false}
                  error={firstError(errors, `source.columns.${field}`)}
                />
              ))}
            </div>
          </div>
        ))}
        {columnList && (
          <datalist id={columnList}>
            {columns.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        )}
      </fieldset>

      <ScheduleFields
        idPrefix={`${id}-schedule`}
        orgId={orgId}
        plan={plan}
        value={draft.schedule}
        onChange={(schedule) => update({ schedule })}
        errors={within(errors, 'source')}
      />

      <section className="stack" aria-label="Preview" style={{ gap: '0.5rem' }}>
        <div className="actions" style={{ justifyContent: 'flex-start' }}>
          <Button type="button" variant="secondary" busy={previewing.isLoading} onClick={() => void load()}>
            {shown ? 'Preview again' : 'Load the columns and preview'}
          </Button>
        </div>
        <div aria-live="polite">
          {previewing.isLoading ? (
            <p className="muted" style={{ margin: 0 }}>
              <Spinner /> Reading the first 20 rows…
            </p>
          ) : failure ? (
            <FailureAlert orgId={orgId} error={failure} fallback="Could not read the preview." />
          ) : previewing.isError ? (
            <p className="field__error" role="alert" style={{ margin: 0 }}>
              The preview found a problem: see the fields above.
            </p>
          ) : shown ? (
            <PreviewTable preview={shown} platform={draft.type} checked={shownChecked} />
          ) : (
            <p className="muted" style={{ margin: 0 }}>
              The preview maps the first 20 rows exactly as they will be sent, and fills empty fields from columns of the usual names.
            </p>
          )}
        </div>
      </section>
    </div>
  );
}
