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
import { PlatformError } from '@/lib/server/connectors/errors';
import { connectorFor, rowSourceOf } from '@/lib/server/connectors/registry';
import type { RowSource, SourceColumn } from '@/lib/server/connectors/types';
import { rowToEvent } from '@/lib/server/delivery/warehouseRows';
import { openSessionOf } from '@/lib/server/credentials';
import { DomainError, invalidFields } from '@/lib/server/errors';
import { getIntegration } from '@/lib/server/repos/integrations';
import { getConversion } from '@/lib/server/repos/conversions';
import { requestRead } from '@/lib/server/repos/reads';
import { assertSchedule } from '@/lib/server/services/connections';

/**
 * Warehouse platforms as conversion sources (their connector's `source`), before the worker reads
 * them: the source is checked against what it reads (where the platform can say without reading: a
 * dry run, its columns, the cursor), previewed (the first 20 rows mapped and hashed, exactly as they
 * will be sent), and read now on request.
 */

const PREVIEW_ROWS = 20;

export interface PreviewRow {
  /** The event as it will be queued (identifiers hashed), or why the row makes none. */
  event: ConversionEvent | null;
  id: string;
  problem: string | null;
}

export interface Preview {
  columns: SourceColumn[];
  /** The mapping the rows were mapped with: the one given, its empty fields filled when asked to suggest. */
  mapping: SuggestedMapping;
  /** What a read of everything processes now, where the platform says (BigQuery's dry run). */
  bytesProcessed: number | null;
  rows: PreviewRow[];
}

/** The cursor column a source's user picked; '' where the platform's own is used (Mixpanel's time). */
const cursorColumnOf = (source: WarehouseSource) => ('cursorColumn' in source ? source.cursorColumn : '');

/** The destination a source reads with must be the organization's, of the source's platform (and account). */
function checkDestination(destination: Integration, source: WarehouseSource): void {
  if (destination.platform !== source.type)
    throw invalidFields({ 'source.destinationId': [`Pick a ${PLATFORM_LABELS[source.type]} destination`] });
  const account = rowSourceOf(source.type).accountOf?.(source);
  if (account && destination.accounts.length > 0 && !destination.accounts.some((candidate) => candidate.id === account.id)) {
    throw invalidFields({ [account.field]: [`Pick one of the destination’s ${PLATFORM_LABELS[source.type]} projects`] });
  }
}

/** A session on the destination a source reads with, once it is checked (one read of the destination). */
async function readingSession(orgId: string, source: WarehouseSource) {
  const { session, integration } = await openSessionOf(orgId, 'destination', source.destinationId);
  checkDestination(integration, source);
  return session;
}

/** Field errors for mapped columns that what the source reads does not have. */
function missingColumns(source: WarehouseSource, columns: SourceColumn[]): Record<string, string[]> {
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

/** A refusal of what the source reads (its query), as the error of the field that holds it. */
function sourceFieldError(reader: RowSource, source: WarehouseSource, error: unknown): never {
  const field = reader.fieldOf?.(source);
  if (field && error instanceof PlatformError && (error.code === 'invalid' || error.code === 'forbidden')) {
    throw invalidFields({ [field]: [error.message] });
  }
  throw error;
}

/**
 * What a source reads, checked without reading (a dry run): its columns, or field errors. With
 * `suggest`, empty fields are first filled from its columns (the dry run is free: before anything is billed).
 */
async function describeChecked(
  orgId: string,
  reader: RowSource & Required<Pick<RowSource, 'describe'>>,
  given: WarehouseSource,
  suggest = false,
) {
  const session = await readingSession(orgId, given);
  const described = await reader.describe(session, given).catch((error) => sourceFieldError(reader, given, error));
  const source: WarehouseSource = suggest
    ? {
        ...given,
        ...suggestMapping(
          { columns: given.columns, cursorColumn: cursorColumnOf(given) },
          described.columns.map((column) => column.name),
          described.timeColumns,
        ),
      }
    : given;
  const errors = missingColumns(source, described.columns);
  // A source being set up (its preview) may not have picked its cursor yet.
  const cursorColumn = cursorColumnOf(source);
  const cursor = cursorColumn === '' ? null : (reader.cursorProblem?.(described.columns, cursorColumn) ?? null);
  if (cursor) errors['source.cursorColumn'] = [cursor];
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  return { session, described, source };
}

const describable = (reader: RowSource): reader is RowSource & Required<Pick<RowSource, 'describe'>> => reader.describe !== undefined;

/** Checks a warehouse source before it is saved: the plan's schedule, the destination, what it reads where the platform says. */
export async function checkWarehouseSource(orgId: string, plan: unknown, source: WarehouseSource): Promise<void> {
  assertSchedule(plan, source.schedule.every);
  const reader = rowSourceOf(source.type);
  if (describable(reader)) await describeChecked(orgId, reader, source);
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
  const reader = rowSourceOf(given.type);
  if (describable(reader)) {
    const { session, described, source } = await describeChecked(orgId, reader, given, suggest);
    const rows = await reader.preview(session, source, PREVIEW_ROWS).catch((error) => sourceFieldError(reader, source, error));
    return {
      columns: described.columns,
      mapping: { columns: source.columns, cursorColumn: cursorColumnOf(source) },
      bytesProcessed: described.bytesProcessed,
      rows: rows.map((row) => previewRow(row, source)),
    };
  }
  // Only the rows say what the source reads: its columns are the properties they have.
  const session = await readingSession(orgId, given);
  const rows = await reader.preview(session, given, PREVIEW_ROWS).catch((error) => sourceFieldError(reader, given, error));
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))].sort();
  const source = suggest
    ? { ...given, columns: suggestMapping({ columns: given.columns, cursorColumn: cursorColumnOf(given) }, names).columns }
    : given;
  return {
    columns: names.map((name) => ({ name, type: 'PROPERTY' })),
    mapping: { columns: source.columns, cursorColumn: cursorColumnOf(source) },
    bytesProcessed: null,
    rows: rows.map((row) => previewRow(row, source)),
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
