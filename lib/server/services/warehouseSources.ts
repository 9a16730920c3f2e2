import {
  COLUMN_FIELDS,
  COLUMN_FIELD_LABELS,
  isWarehouseSource,
  sourceKeyOf,
  type WarehouseSource,
} from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { suggestMapping, type SuggestedMapping } from '@/lib/shared/conversions/suggest';
import { PLATFORM_LABELS, type Integration } from '@/lib/shared/integrations/platforms';
import { cursorProblem, describeSource, previewRows, type Column } from '@/lib/server/connectors/bigquery/source';
import { PlatformError } from '@/lib/server/connectors/errors';
import { exportEvents } from '@/lib/server/connectors/mixpanel/export';
import { connectorFor } from '@/lib/server/connectors/registry';
import { rowToEvent } from '@/lib/server/conversions/warehouseRows';
import { openSessionOf } from '@/lib/server/credentials';
import { DomainError, invalidFields } from '@/lib/server/errors';
import { getIntegration } from '@/lib/server/repos/integrations';
import { getConversion } from '@/lib/server/repos/conversions';
import { requestRead } from '@/lib/server/repos/reads';
import { assertSchedule } from '@/lib/server/services/connections';

/**
 * BigQuery and Mixpanel as conversion sources, before the worker reads them: the source is checked
 * against what it reads (a dry run: one SELECT, its columns, the cursor), previewed (the first 20 rows
 * mapped and hashed, exactly as they will be sent), and read now on request.
 */

const PREVIEW_ROWS = 20;
/** BigQuery types that hold a point in time: the one such column of a table is its event time. */
const TIME_TYPES = new Set(['TIMESTAMP', 'DATETIME']);

/** The preview of a Mixpanel source reads its events of the last days. */
const MIXPANEL_PREVIEW_DAYS = 7;

export interface PreviewRow {
  /** The event as it will be queued (identifiers hashed), or why the row makes none. */
  event: ConversionEvent | null;
  id: string;
  problem: string | null;
}

export interface Preview {
  columns: Column[];
  /** The mapping the rows were mapped with: the one given, its empty fields filled when asked to suggest. */
  mapping: SuggestedMapping;
  /** BigQuery: what a read of everything processes now (its dry run). */
  bytesProcessed: number | null;
  rows: PreviewRow[];
}

/** The destination a source reads with must be the organization's, of the source's platform (and project). */
function checkDestination(destination: Integration, source: WarehouseSource): void {
  if (destination.platform !== source.type)
    throw invalidFields({ 'source.destinationId': [`Pick a ${PLATFORM_LABELS[source.type]} destination`] });
  if (
    source.type === 'bigquery' &&
    destination.accounts.length > 0 &&
    !destination.accounts.some((account) => account.id === source.projectId)
  ) {
    throw invalidFields({ 'source.projectId': ['Pick one of the destination’s BigQuery projects'] });
  }
}

/** A session on the destination a source reads with, once it is checked (one read of the destination). */
async function readingSession(orgId: string, source: WarehouseSource) {
  const { session, integration } = await openSessionOf(orgId, 'destination', source.destinationId);
  checkDestination(integration, source);
  return session;
}

/** Field errors for mapped columns that what the source reads does not have. */
function missingColumns(source: WarehouseSource, columns: Column[]): Record<string, string[]> {
  const names = new Set(columns.map((column) => column.name));
  const errors: Record<string, string[]> = {};
  for (const field of COLUMN_FIELDS) {
    const column = source.columns[field];
    if (column !== undefined && !names.has(column)) {
      errors[`source.columns.${field}`] = [
        `No column "${column}" for ${COLUMN_FIELD_LABELS[field].toLowerCase()}. The columns are: ${[...names].join(', ')}.`,
      ];
    }
  }
  return errors;
}

/** A BigQuery refusal of the query, as the error of the field that holds it. */
function queryFieldError(source: WarehouseSource & { type: 'bigquery' }, error: unknown): never {
  if (error instanceof PlatformError && (error.code === 'invalid' || error.code === 'forbidden')) {
    throw invalidFields({ [source.mode === 'table' ? 'source.table' : 'source.sql']: [error.message] });
  }
  throw error;
}

/** What a BigQuery source reads, checked by a dry run: its columns, or field errors. */
async function describeChecked(orgId: string, given: WarehouseSource & { type: 'bigquery' }, suggest = false) {
  const session = await readingSession(orgId, given);
  const described = await describeSource(session, given).catch((error) => queryFieldError(given, error));
  // The dry run is free: empty fields are filled from its columns before anything is billed.
  const source = suggest
    ? {
        ...given,
        ...suggestMapping(
          given,
          described.columns.map((column) => column.name),
          described.columns.filter((column) => TIME_TYPES.has(column.type)).map((column) => column.name),
        ),
      }
    : given;
  const errors = missingColumns(source, described.columns);
  // A source being set up (its preview) may not have picked its cursor yet.
  const cursor = source.cursorColumn === '' ? null : cursorProblem(described.columns, source.cursorColumn);
  if (cursor) errors['source.cursorColumn'] = [cursor];
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  return { session, described, source };
}

/** Checks a warehouse source before it is saved: the plan's schedule, the destination, the columns. */
export async function checkWarehouseSource(orgId: string, plan: unknown, source: WarehouseSource): Promise<void> {
  assertSchedule(plan, source.schedule.every);
  if (source.type === 'bigquery') await describeChecked(orgId, source);
  else checkDestination(await getIntegration(orgId, 'destination', source.destinationId), source);
}

const previewRow = (row: Record<string, unknown>, source: WarehouseSource): PreviewRow => {
  const mapped = rowToEvent(row, source, sourceKeyOf(source));
  return mapped.ok ? { event: mapped.event, id: mapped.event.id, problem: null } : { event: null, id: mapped.id, problem: mapped.reason };
};

/**
 * The first rows of a source mapped as they will be sent, with the columns to map from. With
 * `suggest`, the fields left empty are first filled from columns of the usual names (one preview,
 * one billed query), and the answer says the mapping used.
 */
export async function previewWarehouseSource(
  orgId: string,
  given: WarehouseSource,
  { suggest = false, sendsTo }: { suggest?: boolean; sendsTo?: string } = {},
): Promise<Preview> {
  const preview = await previewMapped(orgId, given, suggest);
  if (!sendsTo) return preview;
  // The destination chosen: its own checks (Meta's 7 days, an identifier …) say which rows it would refuse.
  const destination = await getIntegration(orgId, 'destination', sendsTo);
  const check = connectorFor(destination.platform).deliver?.check;
  if (!check) return preview;
  const now = new Date();
  return {
    ...preview,
    rows: preview.rows.map((row) => {
      const refused = row.event ? check(row.event, now) : null;
      return refused ? { ...row, event: null, problem: refused } : row;
    }),
  };
}

async function previewMapped(orgId: string, given: WarehouseSource, suggest: boolean): Promise<Preview> {
  if (given.type === 'bigquery') {
    const { session, described, source } = await describeChecked(orgId, given, suggest);
    const rows = await previewRows(session, source, PREVIEW_ROWS).catch((error) => queryFieldError(source, error));
    const mapping = { columns: source.columns, cursorColumn: source.cursorColumn };
    return {
      columns: described.columns,
      mapping,
      bytesProcessed: described.bytesProcessed,
      rows: rows.map((row) => previewRow(row, source)),
    };
  }
  const source = given;
  const session = await readingSession(orgId, source);
  const today = new Date();
  const fromDate = new Date(today.getTime() - MIXPANEL_PREVIEW_DAYS * 86_400_000).toISOString().slice(0, 10);
  const rows: Array<Record<string, unknown>> = [];
  for await (const batch of exportEvents(session, {
    fromDate,
    toDate: today.toISOString().slice(0, 10),
    events: source.events,
    batchSize: PREVIEW_ROWS,
  })) {
    rows.push(...batch.map((exported) => ({ ...exported.properties, event: exported.event })));
    if (rows.length >= PREVIEW_ROWS) break;
  }
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))].sort();
  const mapped = suggest ? { ...source, columns: suggestMapping({ columns: source.columns, cursorColumn: '' }, names).columns } : source;
  return {
    columns: names.map((name) => ({ name, type: 'PROPERTY' })),
    mapping: { columns: mapped.columns, cursorColumn: '' },
    bytesProcessed: null,
    rows: rows.slice(0, PREVIEW_ROWS).map((row) => previewRow(row, mapped)),
  };
}

/** Read now: the conversion's next read is due at once. */
export async function readNow(orgId: string, id: string): Promise<void> {
  const conversion = await getConversion(orgId, id);
  if (!isWarehouseSource(conversion.source))
    throw new DomainError('invalid', 'Only a BigQuery or Mixpanel conversion is read on a schedule.');
  if (conversion.status !== 'active') throw new DomainError('invalid', 'Resume the conversion first: a paused conversion is not read.');
  await requestRead(orgId, id);
}
