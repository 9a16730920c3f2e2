import { randomBytes } from 'node:crypto';
import { BigQuery, type Dataset, type Table, type TableField } from '@google-cloud/bigquery';
import {
  bigQueryError,
  call,
  clientFor,
  ensureDataset,
  isDuplicate,
  isNotFound,
  load,
  metadataOrNull,
  numeric,
  STAGING_TTL_MS,
  standardType,
  type ApiFailure,
  type Resolved,
} from '@/lib/server/connectors/bigquery/client';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { AdDataSlice, AdDataWriter, WriteResult, WriteTarget } from '@/lib/server/connectors/types';
import { AD_ROW_COLUMNS, AD_ROW_KEY, adRowKey, type AdRow } from '@/lib/shared/connections/rows';
import { errorFields, log } from '@/lib/server/log';

/**
 * Ad performance into a BigQuery table, idempotently: the rows of one slice (a connection's account
 * over a window of days) are loaded into a staging table, then one MERGE updates the rows that are
 * there, inserts the new ones and deletes the slice's rows the staging table no longer has. Rows of
 * other connections, accounts and days are never touched, and running a window twice leaves one row
 * per key with the newest values. The table is created when missing: partitioned by day on `date`,
 * clustered by platform and account.
 */

/** Where rows go when the destination names no dataset or table. */
export const DEFAULT_DATASET = 'signalbridge';
export const DEFAULT_TABLE = 'ad_performance';

/** The destination table's columns: the ad row's, then which connection wrote it and when. */
export const TABLE_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ...AD_ROW_COLUMNS,
  ['connection_id', 'STRING'],
  ['synced_at', 'TIMESTAMP'],
];

/** A row's identity in the table: its connection, then the ad row's key. */
const KEY_COLUMNS: readonly string[] = ['connection_id', ...AD_ROW_KEY];

/** Key columns that may be NULL (campaign-level rows have no ad group or ad): compared through IFNULL, as NULL = NULL is not true. */
const NULLABLE_KEY_COLUMNS = ['ad_group_id', 'ad_id'] as const satisfies ReadonlyArray<
  (typeof AD_ROW_KEY)[number] & { [K in keyof AdRow]: null extends AdRow[K] ? K : never }[keyof AdRow]
>;

/** A staging table lives an hour at most, should the writer die before dropping it. */

const SCHEMA: TableField[] = TABLE_COLUMNS.map(([name, type]) => ({ name, type, mode: 'NULLABLE' }));

/** An auth client that carries our own (sealed, refreshed) access token and counts the requests it signs. */

/** The target's names, checked: they are spliced into SQL. */
function resolve(target: WriteTarget): Resolved {
  const projectId = target.projectId;
  const datasetId = target.dataset || DEFAULT_DATASET;
  const tableId = target.table || DEFAULT_TABLE;
  if (!/^[A-Za-z0-9.:-]{1,128}$/.test(projectId))
    throw new PlatformError('bigquery', 'invalid', `“${projectId}” is not a BigQuery project id.`);
  if (!/^\w{1,1024}$/.test(datasetId))
    throw new PlatformError('bigquery', 'invalid', `“${datasetId}” is not a valid dataset name: use letters, digits and underscores.`);
  if (!/^[\w-]{1,1024}$/.test(tableId))
    throw new PlatformError('bigquery', 'invalid', `“${tableId}” is not a valid table name: use letters, digits, underscores and dashes.`);
  return { projectId, datasetId, tableId };
}

/** An existing table must have every column we write, with its type; other columns are left alone. */
function checkSchema(names: Resolved, fields: TableField[]) {
  for (const [name, type] of TABLE_COLUMNS) {
    const field = fields.find((candidate) => candidate.name === name);
    if (!field)
      throw new PlatformError(
        'bigquery',
        'invalid',
        `Table ${names.projectId}.${names.datasetId}.${names.tableId} has no column ${name} (${type}). Add it, or pick a new table name.`,
      );
    if (standardType(field.type ?? '') !== standardType(type)) {
      throw new PlatformError(
        'bigquery',
        'invalid',
        `Column ${name} of table ${names.projectId}.${names.datasetId}.${names.tableId} is ${field.type}, not ${type}. Pick a new table name.`,
      );
    }
  }
}

async function ensureTable(dataset: Dataset, names: Resolved): Promise<Table> {
  const table = dataset.table(names.tableId);
  const metadata = await metadataOrNull(table);
  if (metadata) {
    checkSchema(names, metadata.schema?.fields ?? []);
    return table;
  }
  try {
    await dataset.createTable(names.tableId, {
      schema: SCHEMA,
      timePartitioning: { type: 'DAY', field: 'date' },
      clustering: { fields: ['platform', 'account_id'] },
      description: 'Ad performance written by SignalBridge: one row per connection, platform, account, campaign, ad group, ad and day.',
    });
  } catch (error) {
    if (!isDuplicate(error)) throw bigQueryError(error);
  }
  return table;
}

/** One row as a line of the load (NEWLINE_DELIMITED_JSON), in the table's types. */
function loadLine(row: AdRow, connectionId: string, syncedAt: string): string {
  const values: Record<string, unknown> = {
    ...row,
    spend: numeric(row.spend),
    conversion_value: numeric(row.conversion_value),
    connection_id: connectionId,
    synced_at: syncedAt,
  };
  return JSON.stringify(Object.fromEntries(TABLE_COLUMNS.map(([name]) => [name, values[name] ?? null])));
}

/** The MERGE of a staging table into the table: update matched keys, insert new ones, delete the slice's rows the staging table lacks. */
export function mergeStatement(names: Resolved, stagingId: string): string {
  const columns = TABLE_COLUMNS.map(([name]) => name);
  const on = KEY_COLUMNS.map((column) =>
    (NULLABLE_KEY_COLUMNS as readonly string[]).includes(column)
      ? `IFNULL(T.${column}, '') = IFNULL(S.${column}, '')`
      : `T.${column} = S.${column}`,
  ).join(' AND ');
  const set = columns
    .filter((column) => !KEY_COLUMNS.includes(column))
    .map((column) => `${column} = S.${column}`)
    .join(', ');
  return [
    `MERGE \`${names.projectId}.${names.datasetId}.${names.tableId}\` T`,
    `USING \`${names.projectId}.${names.datasetId}.${stagingId}\` S`,
    `ON ${on}`,
    `WHEN MATCHED THEN UPDATE SET ${set}`,
    `WHEN NOT MATCHED BY TARGET THEN INSERT (${columns.join(', ')}) VALUES (${columns.map((column) => `S.${column}`).join(', ')})`,
    'WHEN NOT MATCHED BY SOURCE AND T.connection_id = @connection_id AND T.platform = @platform AND T.account_id = @account_id AND T.date BETWEEN @from AND @to THEN DELETE',
  ].join('\n');
}

/** The slice's rows, one per key (the last given wins); a row outside the slice is a bug of the caller. */
function sliceRows(slice: AdDataSlice, rows: AdRow[]): AdRow[] {
  const byKey = new Map<string, AdRow>();
  for (const row of rows) {
    if (row.platform !== slice.platform || row.account_id !== slice.accountId || row.date < slice.from || row.date > slice.to) {
      throw new Error(`Row ${adRowKey(row)} is outside the slice ${slice.platform}/${slice.accountId} ${slice.from}…${slice.to}`);
    }
    byKey.set(adRowKey(row), row);
  }
  return [...byKey.values()];
}

export const bigQueryWriter: AdDataWriter = {
  /** Says whether the dataset exists and is writable (by creating and dropping a probe table), or will be created. */
  async check(session, target) {
    const names = resolve(target);
    const { bigquery } = clientFor(session, names.projectId);
    const dataset = bigquery.dataset(names.datasetId);
    let exists: boolean;
    try {
      await dataset.getMetadata();
      exists = true;
    } catch (error) {
      if (!isNotFound(error)) throw bigQueryError(error);
      if (/Project/.test((error as ApiFailure).message ?? '')) {
        throw new PlatformError('bigquery', 'invalid', `BigQuery project ${names.projectId} was not found, or this login cannot see it.`);
      }
      exists = false;
    }
    if (!exists)
      return `Dataset ${names.projectId}.${names.datasetId} does not exist yet: it will be created, with table ${names.tableId}, on the first sync.`;
    const probeId = `_signalbridge_check_${randomBytes(6).toString('hex')}`;
    await call(() =>
      dataset.createTable(probeId, { schema: [{ name: 'ok', type: 'BOOL' }], expirationTime: String(Date.now() + STAGING_TTL_MS) }),
    );
    await call(() => dataset.table(probeId).delete());
    const table = await metadataOrNull(dataset.table(names.tableId));
    if (!table)
      return `Dataset ${names.projectId}.${names.datasetId} exists and is writable; table ${names.tableId} will be created on the first sync.`;
    checkSchema(names, table.schema?.fields ?? []);
    return `Dataset ${names.projectId}.${names.datasetId} exists and is writable; table ${names.tableId} has the expected columns.`;
  },

  async replace(session, target, slice, rows): Promise<WriteResult> {
    const names = resolve(target);
    const unique = sliceRows(slice, rows);
    const { bigquery, calls } = clientFor(session, names.projectId);
    const dataset = await ensureDataset(bigquery, names);
    await ensureTable(dataset, names);

    const stagingId = `_signalbridge_staging_${names.tableId.replace(/-/g, '_').slice(0, 900)}_${randomBytes(6).toString('hex')}`;
    await call(() => dataset.createTable(stagingId, { schema: SCHEMA, expirationTime: String(Date.now() + STAGING_TTL_MS) }));
    const staging = dataset.table(stagingId);
    try {
      const syncedAt = new Date().toISOString();
      if (unique.length > 0)
        await call(() =>
          load(
            staging,
            unique.map((row) => loadLine(row, slice.connectionId, syncedAt)),
          ),
        );
      await call(async () => {
        const [job] = await bigquery.createQueryJob({
          query: mergeStatement(names, stagingId),
          // A DATE parameter must be a BigQueryDate: the library drops a plain string's value (the parameter would be NULL).
          params: {
            connection_id: slice.connectionId,
            platform: slice.platform,
            account_id: slice.accountId,
            from: BigQuery.date(slice.from),
            to: BigQuery.date(slice.to),
          },
          types: { connection_id: 'STRING', platform: 'STRING', account_id: 'STRING', from: 'DATE', to: 'DATE' },
        });
        await job.promise();
      });
    } finally {
      // The staging table expires within the hour anyway; a failed drop is no reason to fail the write.
      await staging
        .delete()
        .catch((error: unknown) =>
          log.warn(
            { component: 'platforms', platform: 'bigquery', table: stagingId, ...errorFields(error) },
            'BigQuery staging table not dropped',
          ),
        );
    }
    return { written: unique.length, calls: calls(), failed: [] };
  },
};

// Re-exported for the delivery and the tests: the one classification of BigQuery's failures.
export { bigQueryError };
