import { randomBytes } from 'node:crypto';
import { BigQuery, type Dataset, type Table, type TableField } from '@google-cloud/bigquery';
import { OAuth2Client } from 'google-auth-library';
import { bigQueryConfig } from '@/lib/server/connectors/bigquery/config';
import { PlatformError } from '@/lib/server/connectors/http';
import type { AdDataSlice, AdDataWriter, Session, WriteResult, WriteTarget } from '@/lib/server/connectors/types';
import { AD_ROW_COLUMNS, AD_ROW_KEY, adRowKey, type AdRow } from '@/lib/shared/connections/rows';

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
export const TABLE_COLUMNS: ReadonlyArray<readonly [string, string]> = [...AD_ROW_COLUMNS, ['connection_id', 'STRING'], ['synced_at', 'TIMESTAMP']];

/** A row's identity in the table: its connection, then the ad row's key. */
const KEY_COLUMNS: readonly string[] = ['connection_id', ...AD_ROW_KEY];

/** Key columns that may be NULL (campaign-level rows have no ad group or ad): compared through IFNULL, as NULL = NULL is not true. */
const NULLABLE_KEY_COLUMNS = ['ad_group_id', 'ad_id'] as const satisfies ReadonlyArray<(typeof AD_ROW_KEY)[number] & { [K in keyof AdRow]: null extends AdRow[K] ? K : never }[keyof AdRow]>;

/** A staging table lives an hour at most, should the writer die before dropping it. */
const STAGING_TTL_MS = 3600 * 1000;

const SCHEMA: TableField[] = TABLE_COLUMNS.map(([name, type]) => ({ name, type, mode: 'NULLABLE' }));

const TYPE_ALIASES: Record<string, string> = { INTEGER: 'INT64', FLOAT: 'FLOAT64', BOOLEAN: 'BOOL', BIGNUMERIC: 'NUMERIC' };
const standardType = (type: string) => TYPE_ALIASES[type.toUpperCase()] ?? type.toUpperCase();

/** An auth client that carries our own (sealed, refreshed) access token and counts the requests it signs. */
class SessionAuth extends OAuth2Client {
  requests = 0;

  constructor(accessToken: string) {
    super();
    this.setCredentials({ access_token: accessToken });
  }

  override async getRequestHeaders(url?: string | URL) {
    this.requests += 1;
    return super.getRequestHeaders(url);
  }
}

interface Resolved {
  projectId: string;
  datasetId: string;
  tableId: string;
}

/** The target's names, checked: they are spliced into SQL. */
function resolve(target: WriteTarget): Resolved {
  const projectId = target.projectId;
  const datasetId = target.dataset || DEFAULT_DATASET;
  const tableId = target.table || DEFAULT_TABLE;
  if (!/^[A-Za-z0-9.:-]{1,128}$/.test(projectId)) throw new PlatformError('bigquery', 'invalid', `“${projectId}” is not a BigQuery project id.`);
  if (!/^\w{1,1024}$/.test(datasetId)) throw new PlatformError('bigquery', 'invalid', `“${datasetId}” is not a valid dataset name: use letters, digits and underscores.`);
  if (!/^[\w-]{1,1024}$/.test(tableId)) throw new PlatformError('bigquery', 'invalid', `“${tableId}” is not a valid table name: use letters, digits, underscores and dashes.`);
  return { projectId, datasetId, tableId };
}

function clientFor(session: Session, projectId: string) {
  const auth = new SessionAuth(session.accessToken);
  // The library appends /bigquery/v2 to apiEndpoint (and uploads to {apiEndpoint}/upload/bigquery/v2):
  // BIGQUERY_API_URL is the host, e.g. https://bigquery.googleapis.com or the sandbox's …/bigquery.
  // No automatic retries: a refusal is classified here and the sync retries the whole, idempotent write.
  const bigquery = new BigQuery({ projectId, apiEndpoint: bigQueryConfig().apiUrl, authClient: auth, autoRetry: false });
  return { bigquery, calls: () => auth.requests };
}

interface ApiFailure {
  code?: number | string;
  errors?: Array<{ reason?: string; message?: string }>;
  message?: string;
}

const TRANSIENT_REASONS = new Set(['backendError', 'internalError', 'rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded', 'jobRateLimitExceeded']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * What a BigQuery failure means for the caller: 401 is a dead login (reconnect); 5xx and BigQuery's
 * backendError / rateLimitExceeded may pass later; 403 is a missing permission; anything else is the
 * request itself, reported with BigQuery's own words (for a failed load, its most specific error).
 */
export function bigQueryError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const failure = (error ?? {}) as ApiFailure;
  const status = typeof failure.code === 'number' ? failure.code : undefined;
  const errors = failure.errors ?? [];
  const reason = errors[0]?.reason ?? '';
  const detail = errors.length > 0 ? (errors[errors.length - 1]!.message ?? failure.message) : failure.message;
  if (status === 401) return new PlatformError('bigquery', 'needs_reauth', 'BigQuery no longer accepts this login: it was revoked or has expired. Reconnect BigQuery.');
  if ((typeof failure.code === 'string' && NETWORK_CODES.has(failure.code)) || (status !== undefined && status >= 500) || TRANSIENT_REASONS.has(reason)) {
    console.error('[platforms] bigquery transient error', { status, reason });
    return new PlatformError('bigquery', 'retryable', 'BigQuery had a temporary problem. Try again in a minute.');
  }
  // Two DML statements on the same partitions at once (accounts of a connection written side by side):
  // BigQuery aborts one; it passes when tried again.
  if (/concurrent update|could not serialize access/i.test(detail ?? '')) {
    return new PlatformError('bigquery', 'retryable', 'BigQuery was writing another change to this table at the same time. Trying again.');
  }
  if (status === 403 || reason === 'accessDenied') {
    return new PlatformError('bigquery', 'forbidden', `BigQuery refused access: ${detail ?? 'permission denied'}. Give this login the BigQuery Data Editor and Job User roles.`);
  }
  console.error('[platforms] bigquery refused', { status, reason, message: detail });
  return new PlatformError('bigquery', 'invalid', `BigQuery refused the request: ${detail ?? 'unknown error'}`);
}

const isNotFound = (error: unknown) => (error as ApiFailure).code === 404;
const isDuplicate = (error: unknown) => (error as ApiFailure).code === 409;

async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw bigQueryError(error);
  }
}

/** The table's metadata, or null when it does not exist. */
async function metadataOrNull(resource: Dataset | Table): Promise<{ schema?: { fields?: TableField[] } } | null> {
  try {
    const [metadata] = await resource.getMetadata();
    return metadata as { schema?: { fields?: TableField[] } };
  } catch (error) {
    if (isNotFound(error)) return null;
    throw bigQueryError(error);
  }
}

/** An existing table must have every column we write, with its type; other columns are left alone. */
function checkSchema(names: Resolved, fields: TableField[]) {
  for (const [name, type] of TABLE_COLUMNS) {
    const field = fields.find((candidate) => candidate.name === name);
    if (!field) throw new PlatformError('bigquery', 'invalid', `Table ${names.projectId}.${names.datasetId}.${names.tableId} has no column ${name} (${type}). Add it, or pick a new table name.`);
    if (standardType(field.type ?? '') !== standardType(type)) {
      throw new PlatformError('bigquery', 'invalid', `Column ${name} of table ${names.projectId}.${names.datasetId}.${names.tableId} is ${field.type}, not ${type}. Pick a new table name.`);
    }
  }
}

async function ensureDataset(bigquery: BigQuery, names: Resolved): Promise<Dataset> {
  const dataset = bigquery.dataset(names.datasetId);
  if (await metadataOrNull(dataset)) return dataset;
  try {
    await bigquery.createDataset(names.datasetId);
  } catch (error) {
    // Another writer created it in the meantime.
    if (!isDuplicate(error)) throw bigQueryError(error);
  }
  return dataset;
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

/** A decimal for a NUMERIC column: at most 9 fractional digits, never in exponent notation. */
const numeric = (value: number) => {
  const text = value.toFixed(9).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
};

/** One row as a line of the load (NEWLINE_DELIMITED_JSON), in the table's types. */
function loadLine(row: AdRow, connectionId: string, syncedAt: string): string {
  const values: Record<string, unknown> = { ...row, spend: numeric(row.spend), conversion_value: numeric(row.conversion_value), connection_id: connectionId, synced_at: syncedAt };
  return JSON.stringify(Object.fromEntries(TABLE_COLUMNS.map(([name]) => [name, values[name] ?? null])));
}

/** Loads NDJSON into a table through the library's multipart upload and waits for the load job. */
function load(table: Table, lines: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = table.createWriteStream({ sourceFormat: 'NEWLINE_DELIMITED_JSON', writeDisposition: 'WRITE_TRUNCATE', createDisposition: 'CREATE_NEVER' });
    stream.on('error', reject).on('complete', () => resolve());
    stream.end(`${lines.join('\n')}\n`);
  });
}

/** The MERGE of a staging table into the table: update matched keys, insert new ones, delete the slice's rows the staging table lacks. */
export function mergeStatement(names: Resolved, stagingId: string): string {
  const columns = TABLE_COLUMNS.map(([name]) => name);
  const on = KEY_COLUMNS.map((column) =>
    (NULLABLE_KEY_COLUMNS as readonly string[]).includes(column) ? `IFNULL(T.${column}, '') = IFNULL(S.${column}, '')` : `T.${column} = S.${column}`,
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
    if (!exists) return `Dataset ${names.projectId}.${names.datasetId} does not exist yet: it will be created, with table ${names.tableId}, on the first sync.`;
    const probeId = `_signalbridge_check_${randomBytes(6).toString('hex')}`;
    await call(() => dataset.createTable(probeId, { schema: [{ name: 'ok', type: 'BOOL' }], expirationTime: String(Date.now() + STAGING_TTL_MS) }));
    await call(() => dataset.table(probeId).delete());
    const table = await metadataOrNull(dataset.table(names.tableId));
    if (!table) return `Dataset ${names.projectId}.${names.datasetId} exists and is writable; table ${names.tableId} will be created on the first sync.`;
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
      if (unique.length > 0) await call(() => load(staging, unique.map((row) => loadLine(row, slice.connectionId, syncedAt))));
      await call(async () => {
        const [job] = await bigquery.createQueryJob({
          query: mergeStatement(names, stagingId),
          // A DATE parameter must be a BigQueryDate: the library drops a plain string's value (the parameter would be NULL).
          params: { connection_id: slice.connectionId, platform: slice.platform, account_id: slice.accountId, from: BigQuery.date(slice.from), to: BigQuery.date(slice.to) },
          types: { connection_id: 'STRING', platform: 'STRING', account_id: 'STRING', from: 'DATE', to: 'DATE' },
        });
        await job.promise();
      });
    } finally {
      // The staging table expires within the hour anyway; a failed drop is no reason to fail the write.
      await staging.delete().catch((error: unknown) => console.error('[platforms] bigquery staging table not dropped', { table: stagingId, error: (error as ApiFailure).message }));
    }
    return { written: unique.length, calls: calls(), failed: [] };
  },
};
