import { randomBytes } from 'node:crypto';
import { BigQuery, type Dataset, type TableField } from '@google-cloud/bigquery';
import {
  bigQueryError,
  call as callBigQuery,
  clientFor,
  ensureDataset,
  isDuplicate,
  load,
  metadataOrNull,
  numeric,
  STAGING_TTL_MS,
  standardType,
  type ApiFailure,
  type Resolved as TableNames,
} from '@/lib/server/connectors/bigquery/client';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Delivery } from '@/lib/server/connectors/types';
import { identifierFields, type ConversionEvent, type RowOutcome } from '@/lib/shared/conversions/event';
import { errorFields, log } from '@/lib/server/log';

/**
 * An app's conversions appended to a BigQuery table, one row per event, idempotently: a batch is
 * loaded into a staging table, then one MERGE inserts the rows whose event id (within the same
 * source) the table does not have yet, so an event delivered twice (at-least-once) is still one
 * row. The table is created when missing: partitioned by day on the event time, clustered by event
 * name and source. Personal identifiers are only the SHA-256 hashes ingest made.
 */

/** Where conversions go when the routing names no dataset or table. */
export const CONVERSIONS_DATASET = 'signalbridge';
export const CONVERSIONS_TABLE = 'conversions';

/** One load + MERGE per batch: a load job takes far more, this keeps a batch's staging table small. */
const MAX_BATCH = 5000;

/** A staging table lives an hour at most, should the worker die before dropping it. */

/** Rows a load may name as bad before the batch is handed back whole (the caller then splits it). */
const MAX_NAMED_REJECTIONS = 25;

/** BigQuery's NUMERIC keeps 29 integer digits; JavaScript prints 1e21 and above in exponent notation. */
const MAX_VALUE = 1e20;

/** BigQuery's TIMESTAMP ends with 9999-12-31. */
const LATEST_SECONDS = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000;

/** The table's columns, in order. */
export const CONVERSION_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['event_id', 'STRING'],
  ['event_name', 'STRING'],
  ['event_time', 'TIMESTAMP'],
  ['value', 'NUMERIC'],
  ['currency', 'STRING'],
  ['email_sha256', 'STRING'],
  ['phone_sha256', 'STRING'],
  ['first_name_sha256', 'STRING'],
  ['last_name_sha256', 'STRING'],
  ['external_id_sha256', 'STRING'],
  ['gclid', 'STRING'],
  ['gbraid', 'STRING'],
  ['wbraid', 'STRING'],
  ['fbc', 'STRING'],
  ['fbp', 'STRING'],
  ['msclkid', 'STRING'],
  ['ip', 'STRING'],
  ['user_agent', 'STRING'],
  ['page_url', 'STRING'],
  ['action_source', 'STRING'],
  ['source', 'STRING'],
  ['received_at', 'TIMESTAMP'],
];

const REQUIRED = new Set(['event_id', 'event_name', 'event_time', 'received_at']);
const SCHEMA: TableField[] = CONVERSION_COLUMNS.map(([name, type]) => ({ name, type, mode: REQUIRED.has(name) ? 'REQUIRED' : 'NULLABLE' }));

/**
 * The routing conversion's target id: `{dataset}.{table}`, then `/` and the source key the rows
 * carry (`app:{appId}`). Dataset and table names have no `/`, nor have document ids.
 */
export const conversionTableTargetId = (source: string, dataset = CONVERSIONS_DATASET, table = CONVERSIONS_TABLE) =>
  `${dataset}.${table}/${source}`;

/** A conversions table's names and the source its rows are from. */
interface Resolved extends TableNames {
  source: string | null;
}

/** The project (the account), dataset, table and source of a target, checked: they are spliced into SQL. */
export function resolveConversionTable(projectId: string, targetId: string): Resolved {
  const slash = targetId.indexOf('/');
  const where = slash < 0 ? targetId : targetId.slice(0, slash);
  const source = slash < 0 ? null : targetId.slice(slash + 1) || null;
  const dot = where.indexOf('.');
  const datasetId = (dot < 0 ? '' : where.slice(0, dot)) || CONVERSIONS_DATASET;
  const tableId = (dot < 0 ? where : where.slice(dot + 1)) || CONVERSIONS_TABLE;
  // A refusal of the table, not of a row: `forbidden`, so the caller rejects the batch at once instead of splitting it.
  if (!/^[A-Za-z0-9.:-]{1,128}$/.test(projectId))
    throw new PlatformError('bigquery', 'forbidden', `“${projectId}” is not a BigQuery project id.`);
  if (!/^\w{1,1024}$/.test(datasetId))
    throw new PlatformError('bigquery', 'forbidden', `“${datasetId}” is not a valid dataset name: use letters, digits and underscores.`);
  if (!/^[\w-]{1,1024}$/.test(tableId))
    throw new PlatformError(
      'bigquery',
      'forbidden',
      `“${tableId}” is not a valid table name: use letters, digits, underscores and dashes.`,
    );
  return { projectId, datasetId, tableId, source };
}

const tablePath = (names: Resolved, tableId = names.tableId) => `${names.projectId}.${names.datasetId}.${tableId}`;

/**
 * The writer's classification, with one difference for conversions: a refusal that is not about a
 * row (the table, its schema, the MERGE) is `forbidden`, as splitting the batch cannot help.
 */
const call = <T>(work: () => Promise<T>) => callBigQuery(work, classified);

function classified(error: unknown): PlatformError {
  const platformError = bigQueryError(error);
  return platformError.code === 'invalid' ? new PlatformError('bigquery', 'forbidden', platformError.message) : platformError;
}

/**
 * The table's schema for the staging table: ours, with the mode of the table's own columns (a column
 * someone made REQUIRED then fails the load of the rows without it, and the load names them). An
 * existing table must have every column we write, with its type.
 */
async function ensureTable(dataset: Dataset, names: Resolved): Promise<TableField[]> {
  const table = dataset.table(names.tableId);
  const metadata = await metadataOrNull(table, classified);
  if (!metadata) {
    try {
      await dataset.createTable(names.tableId, {
        schema: SCHEMA,
        timePartitioning: { type: 'DAY', field: 'event_time' },
        clustering: { fields: ['event_name', 'source'] },
        description: 'Conversions sent by SignalBridge: one row per event and source, personal identifiers SHA-256 hashed.',
      });
    } catch (error) {
      if (!isDuplicate(error)) throw classified(error);
    }
    return SCHEMA;
  }
  const fields = metadata.schema?.fields ?? [];
  return SCHEMA.map((column) => {
    const field = fields.find((candidate) => candidate.name === column.name);
    if (!field)
      throw new PlatformError(
        'bigquery',
        'forbidden',
        `Table ${tablePath(names)} has no column ${column.name} (${column.type}). Add it, or route to a new table.`,
      );
    if (standardType(field.type ?? '') !== standardType(column.type!)) {
      throw new PlatformError(
        'bigquery',
        'forbidden',
        `Column ${column.name} of table ${tablePath(names)} is ${field.type}, not ${column.type}. Route to a new table.`,
      );
    }
    return { ...column, mode: field.mode === 'REQUIRED' ? 'REQUIRED' : 'NULLABLE' };
  });
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** One event as a row of the table (NEWLINE_DELIMITED_JSON), hashed identifiers only. */
export function conversionRow(event: ConversionEvent, source: string | null, receivedAt: string): Record<string, string | null> {
  const { context } = event;
  const values: Record<string, string | null | undefined> = {
    event_id: event.id,
    event_name: event.name,
    event_time: iso(event.time),
    value: event.value === null ? null : numeric(event.value),
    currency: event.currency,
    ...identifierFields(event),
    ip: context.ip,
    user_agent: context.userAgent,
    page_url: context.pageUrl,
    action_source: context.actionSource,
    source,
    received_at: receivedAt,
  };
  return Object.fromEntries(CONVERSION_COLUMNS.map(([name]) => [name, values[name] || null]));
}

/** The row a failed load names ("… in row starting at position 1234: …"), with BigQuery's words for it. */
function namedRow(error: unknown, lines: string[]): { index: number; reason: string } | null {
  const messages = ((error as ApiFailure).errors ?? []).map((entry) => entry.message ?? '');
  for (const message of messages.reverse()) {
    const position = /row starting at position (\d+)/.exec(message);
    if (!position) continue;
    let offset = 0;
    const index = lines.findIndex((line) => {
      const found = offset === Number(position[1]);
      offset += Buffer.byteLength(line) + 1;
      return found;
    });
    if (index < 0) return null;
    const reason = message
      .replace(/^Error while reading data, error message: /, '')
      .replace(/^JSON parsing error in row starting at position \d+: /, '');
    return { index, reason: `BigQuery refused this row: ${reason}` };
  }
  return null;
}

/**
 * The MERGE that inserts the staged rows whose (source, event id) the table lacks. The batch's time
 * range prunes the partitions read: a redelivered event has its time, so it is found; an id reused
 * by the caller for an event at another time is a second row.
 */
export function conversionMergeStatement(names: Resolved, stagingId: string): string {
  const columns = CONVERSION_COLUMNS.map(([name]) => name);
  return [
    `MERGE \`${tablePath(names)}\` T`,
    `USING \`${tablePath(names, stagingId)}\` S`,
    "ON T.event_id = S.event_id AND IFNULL(T.source, '') = IFNULL(S.source, '') AND T.event_time BETWEEN @from AND @to",
    `WHEN NOT MATCHED THEN INSERT (${columns.join(', ')}) VALUES (${columns.map((column) => `S.${column}`).join(', ')})`,
  ].join('\n');
}

export const bigQueryDelivery: Delivery = {
  maxBatch: MAX_BATCH,
  check(event) {
    if (event.value !== null && event.value >= MAX_VALUE) return 'Value too large: BigQuery’s NUMERIC holds values below 10^20 here';
    if (event.time > LATEST_SECONDS) return 'Dated after 9999: BigQuery’s TIMESTAMP ends with 9999-12-31';
    return null;
  },
  /**
   * Appends a batch to `{account}.{target}` (the project, then dataset.table/source). Rows a load
   * names are rejected with BigQuery's words and the others loaded again; every row that reached the
   * table (now or by an earlier delivery) is delivered. With a test code the batch is loaded into
   * the staging table only: the table is checked, nothing is added to it.
   */
  async send(session, account, target, events, options) {
    const names = resolveConversionTable(account.id, target.id);
    const { bigquery } = clientFor(session, names.projectId);
    const dataset = await ensureDataset(bigquery, names, classified);
    const schema = await ensureTable(dataset, names);

    const receivedAt = new Date().toISOString();
    const batch = [...new Map(events.map((event) => [event.id, event])).values()];
    const rejected = new Map<string, string>();
    const stagingId = `_signalbridge_staging_${names.tableId.replace(/-/g, '_').slice(0, 900)}_${randomBytes(6).toString('hex')}`;
    await call(() => dataset.createTable(stagingId, { schema, expirationTime: String(Date.now() + STAGING_TTL_MS) }));
    const staging = dataset.table(stagingId);
    try {
      let pending = batch;
      for (;;) {
        const lines = pending.map((event) => JSON.stringify(conversionRow(event, names.source, receivedAt)));
        try {
          await load(staging, lines);
          break;
        } catch (error) {
          const named = namedRow(error, lines);
          // A load refused without naming a row (or naming too many) is the whole request's: the caller halves the batch.
          if (!named || rejected.size >= MAX_NAMED_REJECTIONS) throw bigQueryError(error);
          rejected.set(pending[named.index]!.id, named.reason);
          pending = pending.filter((_, index) => index !== named.index);
          if (pending.length === 0) break;
        }
      }
      if (pending.length > 0 && !options?.testCode) {
        const times = pending.map((event) => event.time);
        await call(async () => {
          const [job] = await bigquery.createQueryJob({
            query: conversionMergeStatement(names, stagingId),
            params: { from: BigQuery.timestamp(iso(Math.min(...times))), to: BigQuery.timestamp(iso(Math.max(...times))) },
            types: { from: 'TIMESTAMP', to: 'TIMESTAMP' },
          });
          await job.promise();
        });
      }
    } finally {
      // The staging table expires within the hour anyway; a failed drop is no reason to fail the delivery.
      await staging
        .delete()
        .catch((error: unknown) =>
          log.warn(
            { component: 'platforms', platform: 'bigquery', table: stagingId, ...errorFields(error) },
            'BigQuery staging table not dropped',
          ),
        );
    }
    return events.map((event): RowOutcome => {
      const reason = rejected.get(event.id);
      return reason === undefined ? { id: event.id, status: 'delivered' } : { id: event.id, status: 'rejected', reason };
    });
  },
};
