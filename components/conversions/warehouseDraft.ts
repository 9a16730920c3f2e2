import { withNames } from '@/components/conversions/mapping';
import type { Schedule } from '@/lib/shared/connections/connection';
import { COLUMN_FIELDS, type ColumnMapping, type WarehouseSource } from '@/lib/shared/conversions/conversion';
import type { Consent } from '@/lib/shared/conversions/event';

/**
 * A BigQuery or Mixpanel conversion source as its form holds it (the byte limit in GB as typed, an
 * event name still in the box), and the source the API takes from it: what the create page needs at
 * first load. New drafts and the fields load beside it (warehouseDefaults.ts).
 */

export interface WarehouseDraft {
  type: 'bigquery' | 'mixpanel';
  destinationId: string;
  projectId: string;
  mode: 'table' | 'sql';
  table: string;
  sql: string;
  cursorColumn: string;
  /** The byte limit in GB, as typed. */
  limitGb: string;
  columns: ColumnMapping;
  eventName: string;
  schedule: Schedule;
  /** Mixpanel: the events to read, and a name still in the box. */
  events: string[];
  pendingEvent: string;
  /** The source's default country as typed ('' none), and its default consent (a question left out: not set). */
  defaultCountry?: string;
  defaultConsent?: Consent;
}

export const GB = 1_000_000_000;

/** The source to send: empty columns left out, a name left in the box counted, an empty limit no number. */
export function warehouseSourceOf(draft: WarehouseDraft): WarehouseSource {
  const columns = Object.fromEntries(Object.entries(draft.columns).filter(([, column]) => column && column.trim() !== '')) as ColumnMapping;
  const country = draft.defaultCountry?.trim();
  const consent = draft.defaultConsent && Object.keys(draft.defaultConsent).length > 0 ? draft.defaultConsent : undefined;
  const common = {
    destinationId: draft.destinationId,
    columns,
    eventName: draft.eventName,
    schedule: draft.schedule,
    ...(country ? { defaultCountry: country } : {}),
    ...(consent ? { defaultConsent: consent } : {}),
  };
  if (draft.type === 'mixpanel') return { ...common, type: 'mixpanel', events: withNames(draft.events, draft.pendingEvent) };
  const gb = draft.limitGb.trim() === '' ? Number.NaN : Number(draft.limitGb);
  return {
    ...common,
    type: 'bigquery',
    projectId: draft.projectId,
    mode: draft.mode,
    table: draft.mode === 'table' ? draft.table : '',
    sql: draft.mode === 'sql' ? draft.sql : '',
    cursorColumn: draft.cursorColumn,
    maximumBytesBilled: Math.round(gb * GB),
  };
}

/** The error keys a change of the draft touches, as the server keys them ('source.table', 'source.columns.email'). */
export function changedFields(before: WarehouseDraft | null, after: WarehouseDraft): string[] {
  const fields: string[] = [];
  for (const key of Object.keys(after) as Array<keyof WarehouseDraft>) {
    if (JSON.stringify(after[key]) === JSON.stringify(before?.[key])) continue;
    if (key === 'columns')
      fields.push(...COLUMN_FIELDS.filter((field) => after.columns[field] !== before?.columns[field]).map((field) => `columns.${field}`));
    else fields.push(key === 'limitGb' ? 'maximumBytesBilled' : key === 'pendingEvent' ? 'events' : key);
  }
  return fields.map((field) => `source.${field}`);
}
