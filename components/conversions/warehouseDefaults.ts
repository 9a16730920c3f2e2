import { GB, type WarehouseDraft } from '@/components/conversions/warehouseDraft';
import { entitlementsOf } from '@/lib/shared/billing/entitlements';
import { schedulesAllowed, type Schedule } from '@/lib/shared/connections/connection';
import { DEFAULT_MAXIMUM_BYTES_BILLED, type ColumnMapping, type WarehouseSource } from '@/lib/shared/conversions/conversion';
import type { Integration } from '@/lib/shared/integrations/platforms';

/**
 * Where a warehouse source's form starts: a new draft for a BigQuery or Mixpanel destination (its
 * project, Mixpanel's usual properties, the plan's schedule), a saved source as a draft, columns of
 * the usual names suggested for empty fields. Loaded with the fields, not in a page's first load.
 */

/** Mixpanel's own property names for the fields it always has. */
const MIXPANEL_COLUMNS: ColumnMapping = {
  eventId: '$insert_id',
  eventTime: 'time',
  eventName: 'event',
  email: '$email',
  phone: '$phone',
  externalId: 'distinct_id',
};

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
  const projectId =
    destination.accounts.some((account) => account.id === own) || destination.accounts.length === 0
      ? (own ?? '')
      : destination.accounts[0]!.id;
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
  const base = {
    destinationId: source.destinationId,
    columns: source.columns,
    eventName: source.eventName,
    schedule: source.schedule,
    pendingEvent: '',
    defaultCountry: source.defaultCountry ?? '',
    defaultConsent: source.defaultConsent ?? {},
  };
  if (source.type === 'mixpanel') {
    return {
      ...base,
      type: 'mixpanel',
      projectId: '',
      mode: 'table',
      table: '',
      sql: '',
      cursorColumn: '',
      limitGb: String(DEFAULT_MAXIMUM_BYTES_BILLED / GB),
      events: source.events,
    };
  }
  const { projectId, mode, table, sql, cursorColumn, maximumBytesBilled } = source;
  return { ...base, type: 'bigquery', projectId, mode, table, sql, cursorColumn, limitGb: String(maximumBytesBilled / GB), events: [] };
}

/** Bytes as a marketer reads them: "12.0 MB", "1.50 GB", "4 kB". */
export function bytesInWords(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}
