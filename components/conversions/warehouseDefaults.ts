import { GB, type WarehouseDraft } from '@/components/conversions/warehouseDraft';
import { entitlementsOf } from '@/lib/shared/billing/entitlements';
import { schedulesAllowed, type Schedule } from '@/lib/shared/connections/connection';
import { COLUMN_FIELDS, DEFAULT_MAXIMUM_BYTES_BILLED, type ColumnField, type ColumnMapping, type WarehouseSource } from '@/lib/shared/conversions/conversion';
import type { Integration } from '@/lib/shared/integrations/platforms';

/**
 * Where a warehouse source's form starts: a new draft for a BigQuery or Mixpanel destination (its
 * project, Mixpanel's usual properties, the plan's schedule), a saved source as a draft, columns of
 * the usual names suggested for empty fields. Loaded with the fields, not in a page's first load.
 */

/** Mixpanel's own property names for the fields it always has. */
const MIXPANEL_COLUMNS: ColumnMapping = { eventId: '$insert_id', eventTime: 'time', eventName: 'event', email: '$email', phone: '$phone', externalId: 'distinct_id' };

/** Hourly when the plan has it (a warehouse changes slowly), else the plan's most frequent schedule. */
function defaultSchedule(plan: unknown): Schedule {
  const allowed = schedulesAllowed(entitlementsOf(plan).syncFrequency);
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  return { every: allowed.includes('hourly') ? 'hourly' : allowed[0]!, at: '06:00', timeZone };
}

/** A new source reading with `destination`: its own project, Mixpanel's usual properties mapped. */
export function newWarehouseDraft(destination: Integration, plan: unknown): WarehouseDraft {
  const mixpanel = destination.platform === 'mixpanel';
  const own = destination.settings.projectId;
  const projectId = destination.accounts.some((account) => account.id === own) || destination.accounts.length === 0 ? (own ?? '') : destination.accounts[0]!.id;
  return {
    type: mixpanel ? 'mixpanel' : 'bigquery',
    destinationId: destination.id,
    projectId,
    mode: 'table',
    table: '',
    sql: '',
    cursorColumn: '',
    limitGb: String(DEFAULT_MAXIMUM_BYTES_BILLED / GB),
    columns: mixpanel ? { ...MIXPANEL_COLUMNS } : {},
    eventName: 'Lead',
    schedule: defaultSchedule(plan),
    events: [],
    pendingEvent: '',
  };
}

export function warehouseDraftOf(source: WarehouseSource): WarehouseDraft {
  const base = { destinationId: source.destinationId, columns: source.columns, eventName: source.eventName, schedule: source.schedule, pendingEvent: '' };
  if (source.type === 'mixpanel') {
    return { ...base, type: 'mixpanel', projectId: '', mode: 'table', table: '', sql: '', cursorColumn: '', limitGb: String(DEFAULT_MAXIMUM_BYTES_BILLED / GB), events: source.events };
  }
  const { projectId, mode, table, sql, cursorColumn, maximumBytesBilled } = source;
  return { ...base, type: 'bigquery', projectId, mode, table, sql, cursorColumn, limitGb: String(maximumBytesBilled / GB), events: [] };
}

/** Column names a field usually has, most telling first: the preview fills empty fields from them. */
const USUAL_COLUMNS: Record<ColumnField, string[]> = {
  eventId: ['event_id', 'transaction_id', 'order_id', 'lead_id', 'id', '$insert_id'],
  eventTime: ['event_time', 'converted_at', 'conversion_time', 'closed_at', 'created_at', 'timestamp', 'time'],
  eventName: ['event_name', 'event'],
  email: ['email', 'email_address', '$email'],
  phone: ['phone', 'phone_number', '$phone'],
  firstName: ['first_name', '$first_name'],
  lastName: ['last_name', '$last_name'],
  externalId: ['external_id', 'customer_id', 'user_id', 'distinct_id'],
  gclid: ['gclid'],
  fbclid: ['fbclid'],
  fbc: ['fbc', '_fbc'],
  fbp: ['fbp', '_fbp'],
  msclkid: ['msclkid'],
  value: ['value', 'conversion_value', 'amount', 'revenue'],
  currency: ['currency', 'currency_code'],
};

/** Fills the fields (and the cursor) the user left empty with columns of the usual names that exist. */
export function suggestColumns(draft: WarehouseDraft, names: string[]): WarehouseDraft {
  const present = new Set(names);
  const columns = { ...draft.columns };
  for (const field of COLUMN_FIELDS) {
    if (columns[field]) continue;
    const found = USUAL_COLUMNS[field].find((name) => present.has(name));
    if (found) columns[field] = found;
  }
  const cursorColumn = draft.type === 'bigquery' && !draft.cursorColumn ? (['updated_at', 'modified_at', columns.eventTime ?? ''].find((name) => present.has(name)) ?? '') : draft.cursorColumn;
  return { ...draft, columns, cursorColumn };
}

/** Bytes as a marketer reads them: "12.0 MB", "1.50 GB", "4 kB". */
export function bytesInWords(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}
