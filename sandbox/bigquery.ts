/**
 * The sandbox's BigQuery: the REST subset `@google-cloud/bigquery` 8 uses, under
 * `/bigquery/bigquery/v2/projects/{p}/…` (and the library's multipart upload path,
 * `/bigquery/upload/bigquery/v2/projects/{p}/jobs`). Projects list; datasets get/insert; tables
 * get/insert/delete (schema, timePartitioning, clustering, expirationTime); jobs insert/get,
 * jobs.query and getQueryResults; tabledata list. Load jobs take NEWLINE_DELIMITED_JSON, checked
 * against the schema (an unknown column or a value of the wrong type fails the job as BigQuery
 * does). Query jobs run a small SQL subset (sandbox/bigquerySql below): SELECT with WHERE / ORDER BY
 * / LIMIT and named parameters, MERGE of a staging table into a table, DROP TABLE; anything else is
 * refused as `invalidQuery`. Every call needs a Google access token with the BigQuery scope.
 *
 * The sandbox login may write everywhere in its two projects except the dataset
 * `acme-analytics.shared_reports`, which is shared with it read-only (writes are refused with 403
 * accessDenied). Everything is kept in memory.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml, json } from '@/sandbox/server';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

export const BIGQUERY_PROJECTS = [
  { id: 'acme-analytics', friendlyName: 'Acme Analytics' },
  { id: 'acme-warehouse', friendlyName: 'Acme Warehouse' },
] as const;

/** A dataset the sandbox login can read but not write (BigQuery Data Viewer on it). */
export const READ_ONLY_DATASET = { projectId: 'acme-analytics', datasetId: 'shared_reports' } as const;

const LOCATION = 'US';
const API = /^\/bigquery\/bigquery\/v2\/projects(?:\/([^/]+)(\/.*)?)?$/;
const UPLOAD = /^\/bigquery\/upload\/bigquery\/v2\/projects\/([^/]+)\/jobs$/;

// ---------------------------------------------------------------------------------------------
// Values

type FieldType = 'STRING' | 'INT64' | 'FLOAT64' | 'NUMERIC' | 'BIGNUMERIC' | 'BOOL' | 'DATE' | 'DATETIME' | 'TIMESTAMP';

export interface Field {
  name: string;
  type: string;
  mode?: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  description?: string;
}

/** An exact decimal (NUMERIC / BIGNUMERIC), kept as BigQuery prints it. */
class Numeric {
  constructor(readonly text: string) {}
}
/** A TIMESTAMP in microseconds since the epoch. */
class Timestamp {
  constructor(readonly micros: number) {}
}

type Cell = null | string | number | boolean | Numeric | Timestamp;
type Row = Record<string, Cell>;

const TYPE_ALIASES: Record<string, FieldType> = {
  STRING: 'STRING',
  INT64: 'INT64',
  INTEGER: 'INT64',
  FLOAT64: 'FLOAT64',
  FLOAT: 'FLOAT64',
  NUMERIC: 'NUMERIC',
  BIGNUMERIC: 'BIGNUMERIC',
  BOOL: 'BOOL',
  BOOLEAN: 'BOOL',
  DATE: 'DATE',
  DATETIME: 'DATETIME',
  TIMESTAMP: 'TIMESTAMP',
};

/** A schema type in its standard SQL name, or null when the sandbox does not know it. */
export const standardType = (type: string): FieldType | null => TYPE_ALIASES[type.toUpperCase()] ?? null;

/** A decimal as BigQuery prints NUMERIC: at most 9 fractional digits, no trailing zeros. */
function decimalText(value: number | string): string | null {
  const number = typeof value === 'number' ? value : /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(number)) return null;
  if (typeof value === 'string' && /^[-+]?\d+(\.\d{0,9})?$/.test(value.trim())) {
    const [whole, fraction = ''] = value.trim().replace(/^\+/, '').split('.');
    const trimmed = fraction.replace(/0+$/, '');
    const integer = whole!.replace(/^(-?)0+(?=\d)/, '$1');
    const text = trimmed ? `${integer}.${trimmed}` : integer;
    return text === '-0' ? '0' : text;
  }
  const text = number.toFixed(9).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const validDate = (value: string) => {
  const match = DATE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value;
};

/** A timestamp from text (ISO, or "YYYY-MM-DD HH:MM:SS[.ffffff] [UTC]") or seconds since the epoch. */
function timestampOf(value: unknown): Timestamp | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Timestamp(Math.round(value * 1e6));
  if (typeof value !== 'string') return null;
  const text = value.trim().replace(/ UTC$/, 'Z').replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');
  const ms = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) || !text.includes('T') ? text : `${text}Z`);
  if (Number.isNaN(ms)) return null;
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
  const micros = Math.floor(ms / 1000) * 1e6 + Number(fraction.padEnd(6, '0').slice(0, 6) || 0);
  return new Timestamp(micros);
}

/** A loaded JSON value as a cell of `type`, or the reason it cannot be one. */
function cellOf(type: FieldType, value: unknown): Cell | { error: string } {
  if (value === null || value === undefined) return null;
  const shown = typeof value === 'string' ? `string_value: "${value}"` : typeof value === 'number' ? `double_value: ${value}` : JSON.stringify(value);
  const fail = (kind: string) => ({ error: `Could not convert value '${shown}' to ${kind}.` });
  switch (type) {
    case 'STRING':
    case 'DATETIME':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return fail('string');
    case 'INT64': {
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value);
      return fail('integer');
    }
    case 'FLOAT64': {
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return fail('double');
    }
    case 'NUMERIC':
    case 'BIGNUMERIC': {
      const text = typeof value === 'number' || typeof value === 'string' ? decimalText(value) : null;
      return text === null ? fail('NUMERIC') : new Numeric(text);
    }
    case 'BOOL':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return fail('boolean');
    case 'DATE':
      return typeof value === 'string' && validDate(value) ? value : fail('date');
    case 'TIMESTAMP':
      return timestampOf(value) ?? fail('timestamp');
  }
}

/** A cell in BigQuery's REST form (`v`): every value a string, timestamps as micros or float seconds. */
function wireOf(cell: Cell, int64Timestamps: boolean): string | null {
  if (cell === null) return null;
  if (cell instanceof Numeric) return cell.text;
  if (cell instanceof Timestamp) return int64Timestamps ? String(cell.micros) : String(cell.micros / 1e6);
  return String(cell);
}

/** A cell as tests and the sandbox page read it: INT64/FLOAT64 numbers, NUMERIC a decimal string, DATE text, TIMESTAMP ISO. */
function plainOf(cell: Cell): unknown {
  if (cell instanceof Numeric) return cell.text;
  if (cell instanceof Timestamp) return new Date(Math.floor(cell.micros / 1000)).toISOString();
  return cell;
}

// ---------------------------------------------------------------------------------------------
// Errors in Google's JSON API shape

class BigQueryError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly location?: string,
  ) {
    super(message);
  }
}

const STATUS_TEXT: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'ALREADY_EXISTS', 500: 'INTERNAL' };

const errorBody = (error: BigQueryError) => ({
  error: {
    code: error.code,
    message: error.message,
    errors: [{ message: error.message, domain: 'global', reason: error.reason, ...(error.location ? { location: error.location, locationType: 'other' } : {}) }],
    status: STATUS_TEXT[error.code] ?? 'UNKNOWN',
  },
});

const notFound = (what: string) => new BigQueryError(404, 'notFound', `Not found: ${what}`);
const invalid = (message: string) => new BigQueryError(400, 'invalid', message);
const invalidQuery = (message: string) => new BigQueryError(400, 'invalidQuery', message, 'query');

// ---------------------------------------------------------------------------------------------
// Storage

interface Table {
  projectId: string;
  datasetId: string;
  tableId: string;
  fields: Field[];
  timePartitioning?: { type: string; field?: string; expirationMs?: string };
  clustering?: { fields: string[] };
  /** ms since the epoch; the table is gone after it. */
  expirationTime?: number;
  description?: string;
  labels?: Record<string, string>;
  creationTime: number;
  lastModifiedTime: number;
  rows: Row[];
}

interface Dataset {
  projectId: string;
  datasetId: string;
  location: string;
  readOnly: boolean;
  creationTime: number;
  lastModifiedTime: number;
  description?: string;
  labels?: Record<string, string>;
  tables: Map<string, Table>;
}

interface Job {
  projectId: string;
  jobId: string;
  location: string;
  configuration: Json;
  creationTime: number;
  /** The job's error, when it failed. */
  errors: Array<{ reason: string; message: string; location?: string }> | null;
  statistics: Json;
  /** A query's result: its schema and rows. */
  result?: { fields: Field[]; rows: Row[] };
  dml?: { inserted: number; updated: number; deleted: number };
  statementType?: string;
}

/** What tests read: a table's metadata (as tables.get answers) and its rows. */
export interface SandboxBigQuery {
  /** Every row of a table, decoded: INT64/FLOAT64 numbers, NUMERIC decimal strings, DATE 'YYYY-MM-DD', TIMESTAMP ISO strings. */
  rows(projectId: string, datasetId: string, tableId: string): Array<Record<string, unknown>>;
  /** The table's metadata as tables.get returns it, or undefined when it does not exist (or expired). */
  table(projectId: string, datasetId: string, tableId: string): Json | undefined;
  /** Every live table, e.g. to find staging tables left behind. */
  tables(): Array<{ projectId: string; datasetId: string; tableId: string }>;
  /** Queries run (SQL text), oldest first. */
  queries(): string[];
  /** Forgets every dataset, table and job (the read-only dataset comes back empty). */
  reset(): void;
}

function createWarehouse() {
  const datasets = new Map<string, Dataset>();
  const jobs = new Map<string, Job>();
  const queries: string[] = [];

  function seed() {
    datasets.clear();
    jobs.clear();
    queries.length = 0;
    const now = Date.now();
    datasets.set(`${READ_ONLY_DATASET.projectId}:${READ_ONLY_DATASET.datasetId}`, {
      ...READ_ONLY_DATASET,
      location: LOCATION,
      readOnly: true,
      creationTime: now,
      lastModifiedTime: now,
      description: 'Shared with the sandbox login as BigQuery Data Viewer',
      tables: new Map(),
    });
  }
  seed();

  const projectOf = (projectId: string) => {
    if (!BIGQUERY_PROJECTS.some((project) => project.id === projectId)) throw notFound(`Project ${projectId}`);
  };
  const dataset = (projectId: string, datasetId: string) => {
    projectOf(projectId);
    const found = datasets.get(`${projectId}:${datasetId}`);
    if (!found) throw notFound(`Dataset ${projectId}:${datasetId}`);
    return found;
  };
  const table = (projectId: string, datasetId: string, tableId: string) => {
    const owner = dataset(projectId, datasetId);
    const found = owner.tables.get(tableId);
    if (found && found.expirationTime !== undefined && found.expirationTime <= Date.now()) owner.tables.delete(tableId);
    const live = owner.tables.get(tableId);
    if (!live) throw notFound(`Table ${projectId}:${datasetId}.${tableId}`);
    return live;
  };
  const writable = (owner: Dataset, permission: string) => {
    if (owner.readOnly) {
      throw new BigQueryError(
        403,
        'accessDenied',
        `Access Denied: Dataset ${owner.projectId}:${owner.datasetId}: Permission ${permission} denied on dataset ${owner.projectId}:${owner.datasetId} (or it may not exist).`,
      );
    }
  };
  const liveTables = () =>
    [...datasets.values()].flatMap((owner) =>
      [...owner.tables.values()].filter((candidate) => candidate.expirationTime === undefined || candidate.expirationTime > Date.now()),
    );
  return { datasets, jobs, queries, seed, dataset, table, writable, liveTables };
}

type Warehouse = ReturnType<typeof createWarehouse>;

// ---------------------------------------------------------------------------------------------
// Resources as the API returns them

const base = (store: SandboxStore) => `${store.base}/bigquery/bigquery/v2`;

function datasetResource(store: SandboxStore, owner: Dataset) {
  return {
    kind: 'bigquery#dataset',
    etag: String(owner.lastModifiedTime),
    id: `${owner.projectId}:${owner.datasetId}`,
    selfLink: `${base(store)}/projects/${owner.projectId}/datasets/${owner.datasetId}`,
    datasetReference: { datasetId: owner.datasetId, projectId: owner.projectId },
    ...(owner.description ? { description: owner.description } : {}),
    ...(owner.labels ? { labels: owner.labels } : {}),
    access: owner.readOnly
      ? [{ role: 'READER', specialGroup: 'projectReaders' }]
      : [
          { role: 'WRITER', specialGroup: 'projectWriters' },
          { role: 'OWNER', specialGroup: 'projectOwners' },
          { role: 'READER', specialGroup: 'projectReaders' },
        ],
    creationTime: String(owner.creationTime),
    lastModifiedTime: String(owner.lastModifiedTime),
    location: owner.location,
    type: 'DEFAULT',
  };
}

function tableResource(store: SandboxStore, found: Table) {
  return {
    kind: 'bigquery#table',
    etag: String(found.lastModifiedTime),
    id: `${found.projectId}:${found.datasetId}.${found.tableId}`,
    selfLink: `${base(store)}/projects/${found.projectId}/datasets/${found.datasetId}/tables/${found.tableId}`,
    tableReference: { projectId: found.projectId, datasetId: found.datasetId, tableId: found.tableId },
    schema: { fields: found.fields.map((field) => ({ ...field, mode: field.mode ?? 'NULLABLE' })) },
    ...(found.timePartitioning ? { timePartitioning: found.timePartitioning } : {}),
    ...(found.clustering ? { clustering: found.clustering } : {}),
    ...(found.expirationTime !== undefined ? { expirationTime: String(found.expirationTime) } : {}),
    ...(found.description ? { description: found.description } : {}),
    ...(found.labels ? { labels: found.labels } : {}),
    numBytes: String(JSON.stringify(found.rows.map((row) => Object.values(row).map((cell) => wireOf(cell, true)))).length),
    numLongTermBytes: '0',
    numRows: String(found.rows.length),
    creationTime: String(found.creationTime),
    lastModifiedTime: String(found.lastModifiedTime),
    type: 'TABLE',
    location: LOCATION,
  };
}

function jobResource(store: SandboxStore, job: Job) {
  const reference = { projectId: job.projectId, jobId: job.jobId, location: job.location };
  const status = job.errors ? { state: 'DONE', errorResult: job.errors[0], errors: job.errors } : { state: 'DONE' };
  return {
    kind: 'bigquery#job',
    etag: String(job.creationTime),
    id: `${job.projectId}:${job.location}.${job.jobId}`,
    selfLink: `${base(store)}/projects/${job.projectId}/jobs/${job.jobId}?location=${job.location}`,
    user_email: 'signalbridge@acme-warehouse.iam.gserviceaccount.com',
    configuration: job.configuration,
    jobReference: reference,
    statistics: { creationTime: String(job.creationTime), startTime: String(job.creationTime), endTime: String(Date.now()), ...job.statistics },
    status,
  };
}

// ---------------------------------------------------------------------------------------------
// Schema checks

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,299}$/;
const DATASET_ID = /^[A-Za-z0-9_]{1,1024}$/;
const TABLE_ID = /^[\w-]{1,1024}$/;

function checkedFields(schema: unknown): Field[] {
  const fields = (schema as { fields?: unknown } | undefined)?.fields;
  if (fields === undefined) return [];
  if (!Array.isArray(fields)) throw invalid('Invalid schema: fields must be a list');
  const seen = new Set<string>();
  return fields.map((raw: Json) => {
    const name = String(raw.name ?? '');
    if (!FIELD_NAME.test(name)) throw invalid(`Invalid field name "${name}". Fields must contain only letters, numbers, and underscores, start with a letter or underscore, and be at most 300 characters long.`);
    if (seen.has(name.toLowerCase())) throw invalid(`Field ${name} already exists in schema`);
    seen.add(name.toLowerCase());
    const type = String(raw.type ?? '').toUpperCase();
    if (type === 'RECORD' || type === 'STRUCT' || raw.mode === 'REPEATED') throw invalid(`Field ${name}: the sandbox supports only scalar, non-repeated columns`);
    if (!standardType(type)) throw invalid(`Invalid value for type: ${type} is not a valid value`);
    const mode = raw.mode === undefined ? undefined : String(raw.mode).toUpperCase();
    if (mode !== undefined && mode !== 'NULLABLE' && mode !== 'REQUIRED') throw invalid(`Invalid value for mode: ${mode} is not a valid value`);
    return { name, type, ...(mode ? { mode: mode as Field['mode'] } : {}), ...(typeof raw.description === 'string' ? { description: raw.description } : {}) };
  });
}

function newTable(projectId: string, datasetId: string, tableId: string, body: Json): Table {
  if (!TABLE_ID.test(tableId)) throw invalid(`Invalid table ID "${tableId}".`);
  const fields = checkedFields(body.schema);
  const partitioning = body.timePartitioning as Table['timePartitioning'] | undefined;
  if (partitioning) {
    if (!['DAY', 'HOUR', 'MONTH', 'YEAR'].includes(partitioning.type)) throw invalid(`Invalid value for type: ${partitioning.type} is not a valid value`);
    if (partitioning.field !== undefined) {
      const field = fields.find((candidate) => candidate.name === partitioning.field);
      if (!field) throw invalid(`The field specified for partitioning cannot be found in the schema. Invalid field: ${partitioning.field}.`);
      const type = standardType(field.type);
      if (type !== 'DATE' && type !== 'TIMESTAMP' && type !== 'DATETIME') {
        throw invalid(`The field specified for time partitioning can only be of type TIMESTAMP, DATE or DATETIME. The type found is: ${field.type}.`);
      }
    }
  }
  const clustering = body.clustering as Table['clustering'] | undefined;
  if (clustering) {
    if (!Array.isArray(clustering.fields) || clustering.fields.length === 0 || clustering.fields.length > 4) throw invalid('Too many clustering fields: at most 4 are allowed.');
    for (const name of clustering.fields) {
      if (!fields.some((field) => field.name === name)) throw invalid(`The field specified for clustering cannot be found in the schema. Invalid field: ${name}.`);
    }
  }
  const expiration = body.expirationTime === undefined ? undefined : Number(body.expirationTime);
  if (expiration !== undefined && !Number.isFinite(expiration)) throw invalid(`Invalid value for expirationTime: ${String(body.expirationTime)}`);
  const now = Date.now();
  return {
    projectId,
    datasetId,
    tableId,
    fields,
    ...(partitioning ? { timePartitioning: { type: partitioning.type, ...(partitioning.field ? { field: partitioning.field } : {}) } } : {}),
    ...(clustering ? { clustering: { fields: clustering.fields } } : {}),
    ...(expiration !== undefined ? { expirationTime: expiration } : {}),
    ...(typeof body.description === 'string' ? { description: body.description } : {}),
    ...(body.labels ? { labels: body.labels as Record<string, string> } : {}),
    creationTime: now,
    lastModifiedTime: now,
    rows: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Load jobs (NEWLINE_DELIMITED_JSON through the multipart upload)

const loadError = (rows: number, message: string) => [
  {
    reason: 'invalid',
    message: `Error while reading data, error message: JSON table encountered too many errors, giving up. Rows: ${rows}; errors: 1. Please look into the errors[] collection for more details.`,
  },
  { reason: 'invalid', message: `Error while reading data, error message: JSON processing encountered too many errors, giving up. Rows: ${rows}; errors: 1; max bad: 0; error percent: 0` },
  { reason: 'invalid', message },
];

/** Runs a load job's configuration over `data`; the job's errors when it fails. */
function runLoad(warehouse: Warehouse, projectId: string, load: Json, data: string): { errors: Job['errors']; outputRows: number } {
  const destination = load.destinationTable as { projectId?: string; datasetId?: string; tableId?: string } | undefined;
  if (!destination?.datasetId || !destination.tableId) throw invalid('Required parameter is missing: destinationTable');
  const format = String(load.sourceFormat ?? 'CSV');
  if (format !== 'NEWLINE_DELIMITED_JSON') throw invalid(`The sandbox loads only NEWLINE_DELIMITED_JSON, not ${format}`);
  const owner = warehouse.dataset(destination.projectId ?? projectId, destination.datasetId);
  warehouse.writable(owner, 'bigquery.tables.updateData');
  let target: Table | undefined;
  try {
    target = warehouse.table(owner.projectId, owner.datasetId, destination.tableId);
  } catch (error) {
    if (!(error instanceof BigQueryError) || error.code !== 404) throw error;
  }
  const disposition = String(load.writeDisposition ?? 'WRITE_APPEND');
  if (!target) {
    if (load.createDisposition === 'CREATE_NEVER') throw notFound(`Table ${owner.projectId}:${owner.datasetId}.${destination.tableId}`);
    if (!load.schema) throw invalid('No schema specified on job or table.');
    target = newTable(owner.projectId, owner.datasetId, destination.tableId, load);
    owner.tables.set(target.tableId, target);
  } else if (load.schema) {
    const given = checkedFields(load.schema);
    const mismatch = given.find((field, index) => target!.fields[index]?.name !== field.name || standardType(target!.fields[index]!.type) !== standardType(field.type));
    if (given.length !== target.fields.length || mismatch) {
      return { errors: [{ reason: 'invalid', message: `Provided Schema does not match Table ${owner.projectId}:${owner.datasetId}.${target.tableId}. Cannot add fields (field: ${mismatch?.name ?? '?'})` }], outputRows: 0 };
    }
  }
  if (disposition === 'WRITE_EMPTY' && target.rows.length > 0) {
    return { errors: [{ reason: 'duplicate', message: `Already Exists: Table ${owner.projectId}:${owner.datasetId}.${target.tableId}` }], outputRows: 0 };
  }
  const rows: Row[] = [];
  let position = 0;
  const lines = data.split('\n');
  for (const line of lines) {
    const start = position;
    position += Buffer.byteLength(line) + 1;
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      return { errors: loadError(rows.length + 1, `Error while reading data, error message: JSON parsing error in row starting at position ${start}: Parser terminated before end of string`), outputRows: 0 };
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      return { errors: loadError(rows.length + 1, `Error while reading data, error message: JSON parsing error in row starting at position ${start}: Row is not a JSON object`), outputRows: 0 };
    }
    const row: Row = {};
    for (const key of Object.keys(record)) {
      if (!target.fields.some((field) => field.name === key) && load.ignoreUnknownValues !== true) {
        return { errors: loadError(rows.length + 1, `Error while reading data, error message: JSON parsing error in row starting at position ${start}: No such field: ${key}.`), outputRows: 0 };
      }
    }
    for (const field of target.fields) {
      const cell = cellOf(standardType(field.type)!, (record as Json)[field.name]);
      if (cell !== null && typeof cell === 'object' && 'error' in cell) {
        const value = (record as Json)[field.name];
        return {
          errors: loadError(rows.length + 1, `Error while reading data, error message: JSON parsing error in row starting at position ${start}: ${cell.error} Field: ${field.name}; Value: ${String(value)}`),
          outputRows: 0,
        };
      }
      if (cell === null && field.mode === 'REQUIRED') {
        return { errors: loadError(rows.length + 1, `Error while reading data, error message: JSON parsing error in row starting at position ${start}: Missing required field: ${field.name}.`), outputRows: 0 };
      }
      row[field.name] = cell;
    }
    rows.push(row);
  }
  target.rows = disposition === 'WRITE_TRUNCATE' ? rows : [...target.rows, ...rows];
  target.lastModifiedTime = Date.now();
  return { errors: null, outputRows: rows.length };
}

/** The two parts of a multipart/related upload: the job's JSON, then the data. */
function multipartParts(body: Buffer, contentType: string): [string, string] {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!contentType.startsWith('multipart/related') || !boundary) throw invalid('Expected a multipart/related upload');
  const parts = body
    .toString('utf8')
    .split(`--${boundary}`)
    .slice(1)
    .filter((part) => !part.startsWith('--'))
    .map((part) => {
      const split = part.indexOf('\r\n\r\n');
      return (split < 0 ? '' : part.slice(split + 4)).replace(/\r\n$/, '');
    });
  if (parts.length !== 2) throw invalid('A multipart upload has two parts: the job, then the data');
  return [parts[0]!, parts[1]!];
}

// ---------------------------------------------------------------------------------------------
// SQL: a tokenizer, a parser for the subset, and its evaluation

type Token = { kind: 'ident' | 'quoted' | 'number' | 'string' | 'param' | 'punct' | 'end'; value: string; at: number };

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i);
    let match: RegExpExecArray | null;
    if ((match = /^(\s+|--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\/)/.exec(rest))) {
      i += match[0].length;
    } else if (rest[0] === '`') {
      const end = sql.indexOf('`', i + 1);
      if (end < 0) throw invalidQuery(`Syntax error: Unclosed identifier literal at [1:${i + 1}]`);
      tokens.push({ kind: 'quoted', value: sql.slice(i + 1, end), at: i });
      i = end + 1;
    } else if (rest[0] === "'" || rest[0] === '"') {
      const quote = rest[0];
      let value = '';
      let j = i + 1;
      for (; j < sql.length && sql[j] !== quote; j++) {
        if (sql[j] === '\\' && j + 1 < sql.length) {
          j += 1;
          value += ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[sql[j]!] ?? sql[j];
        } else value += sql[j];
      }
      if (j >= sql.length) throw invalidQuery(`Syntax error: Unclosed string literal at [1:${i + 1}]`);
      tokens.push({ kind: 'string', value, at: i });
      i = j + 1;
    } else if ((match = /^@([A-Za-z_]\w*)/.exec(rest))) {
      tokens.push({ kind: 'param', value: match[1]!, at: i });
      i += match[0].length;
    } else if ((match = /^(\d+\.?\d*([eE][-+]?\d+)?|\.\d+)/.exec(rest))) {
      tokens.push({ kind: 'number', value: match[0], at: i });
      i += match[0].length;
    } else if ((match = /^[A-Za-z_]\w*/.exec(rest))) {
      tokens.push({ kind: 'ident', value: match[0], at: i });
      i += match[0].length;
    } else if ((match = /^(<>|!=|<=|>=|[=<>(),.*;+-])/.exec(rest))) {
      tokens.push({ kind: 'punct', value: match[0], at: i });
      i += match[0].length;
    } else {
      throw invalidQuery(`Syntax error: Illegal input character "${rest[0]}" at [1:${i + 1}]`);
    }
  }
  tokens.push({ kind: 'end', value: '', at: sql.length });
  return tokens;
}

type Expr =
  | { type: 'literal'; value: Cell; sqlType: FieldType | null }
  | { type: 'param'; name: string }
  | { type: 'column'; table: string | null; name: string }
  | { type: 'call'; name: string; args: Expr[] }
  | { type: 'compare'; op: string; left: Expr; right: Expr }
  | { type: 'between'; not: boolean; value: Expr; low: Expr; high: Expr }
  | { type: 'in'; not: boolean; value: Expr; list: Expr[] }
  | { type: 'isNull'; not: boolean; value: Expr }
  | { type: 'and' | 'or'; left: Expr; right: Expr }
  | { type: 'not'; value: Expr }
  | { type: 'negate'; value: Expr };

interface TableRef {
  path: string[];
  alias: string;
}

type SelectItem = { star: true; table: string | null } | { star: false; expr: Expr; alias: string | null };

type Statement =
  | { kind: 'SELECT'; items: SelectItem[]; from: TableRef; where: Expr | null; orderBy: Array<{ expr: Expr; desc: boolean }>; limit: number | null }
  | { kind: 'DROP_TABLE'; table: TableRef; ifExists: boolean }
  | { kind: 'MERGE'; target: TableRef; source: TableRef; on: Expr; clauses: MergeClause[] };

type MergeClause =
  | { when: 'matched' | 'notMatchedBySource'; condition: Expr | null; action: { type: 'delete' } | { type: 'update'; set: Array<{ column: string; expr: Expr }> } }
  | { when: 'notMatchedByTarget'; condition: Expr | null; action: { type: 'insertRow' } | { type: 'insert'; columns: string[] | null; values: Expr[] } };

const RESERVED = new Set(['SELECT', 'FROM', 'WHERE', 'ORDER', 'BY', 'LIMIT', 'AND', 'OR', 'NOT', 'ON', 'USING', 'WHEN', 'THEN', 'MATCHED', 'AS', 'BETWEEN', 'IS', 'NULL', 'IN', 'SET', 'MERGE', 'INTO', 'DROP', 'TABLE', 'ASC', 'DESC', 'TRUE', 'FALSE', 'INSERT', 'UPDATE', 'DELETE', 'VALUES', 'ROW']);

function parse(sql: string): Statement {
  const tokens = tokenize(sql);
  let index = 0;
  const peek = (offset = 0) => tokens[Math.min(index + offset, tokens.length - 1)]!;
  const position = (token: Token) => {
    const before = sql.slice(0, token.at).split('\n');
    return `[${before.length}:${before[before.length - 1]!.length + 1}]`;
  };
  const fail = (expected: string): never => {
    const token = peek();
    throw invalidQuery(`Syntax error: Expected ${expected} but got ${token.kind === 'end' ? 'end of input' : `"${token.value}"`} at ${position(token)}`);
  };
  const isWord = (word: string, offset = 0) => peek(offset).kind === 'ident' && peek(offset).value.toUpperCase() === word;
  const acceptWord = (word: string) => (isWord(word) ? (index++, true) : false);
  const word = (expected: string) => {
    if (!acceptWord(expected)) fail(`keyword ${expected}`);
  };
  const isPunct = (value: string) => peek().kind === 'punct' && peek().value === value;
  const acceptPunct = (value: string) => (isPunct(value) ? (index++, true) : false);
  const punct = (value: string) => {
    if (!acceptPunct(value)) fail(`"${value}"`);
  };
  const name = (): string => {
    const token = peek();
    if (token.kind === 'quoted' || (token.kind === 'ident' && !RESERVED.has(token.value.toUpperCase()))) {
      index++;
      return token.value;
    }
    return fail('identifier');
  };

  function tableRef(allowAlias: boolean): TableRef {
    const parts = name().split('.');
    while (acceptPunct('.')) parts.push(...name().split('.'));
    let alias = parts[parts.length - 1]!;
    if (allowAlias) {
      if (acceptWord('AS')) alias = name();
      else if (peek().kind === 'quoted' || (peek().kind === 'ident' && !RESERVED.has(peek().value.toUpperCase()))) alias = name();
    }
    return { path: parts, alias };
  }

  const expr = (): Expr => or();
  function or(): Expr {
    let left = and();
    while (acceptWord('OR')) left = { type: 'or', left, right: and() };
    return left;
  }
  function and(): Expr {
    let left = not();
    while (acceptWord('AND')) left = { type: 'and', left, right: not() };
    return left;
  }
  function not(): Expr {
    if (acceptWord('NOT')) return { type: 'not', value: not() };
    return comparison();
  }
  function comparison(): Expr {
    const left = unary();
    if (peek().kind === 'punct' && ['=', '!=', '<>', '<', '<=', '>', '>='].includes(peek().value)) {
      const op = peek().value;
      index++;
      return { type: 'compare', op: op === '<>' ? '!=' : op, left, right: unary() };
    }
    if (acceptWord('IS')) {
      const negated = acceptWord('NOT');
      word('NULL');
      return { type: 'isNull', not: negated, value: left };
    }
    const negated = isWord('NOT') && (isWord('BETWEEN', 1) || isWord('IN', 1)) ? (index++, true) : false;
    if (acceptWord('BETWEEN')) {
      const low = unary();
      word('AND');
      return { type: 'between', not: negated, value: left, low, high: unary() };
    }
    if (acceptWord('IN')) {
      punct('(');
      const list = [expr()];
      while (acceptPunct(',')) list.push(expr());
      punct(')');
      return { type: 'in', not: negated, value: left, list };
    }
    if (negated) fail('BETWEEN or IN');
    return left;
  }
  function unary(): Expr {
    if (acceptPunct('-')) return { type: 'negate', value: primary() };
    return primary();
  }
  function primary(): Expr {
    const token = peek();
    if (token.kind === 'number') {
      index++;
      const integer = /^\d+$/.test(token.value);
      return { type: 'literal', value: Number(token.value), sqlType: integer ? 'INT64' : 'FLOAT64' };
    }
    if (token.kind === 'string') {
      index++;
      return { type: 'literal', value: token.value, sqlType: 'STRING' };
    }
    if (token.kind === 'param') {
      index++;
      return { type: 'param', name: token.value };
    }
    if (acceptPunct('(')) {
      const inner = expr();
      punct(')');
      return inner;
    }
    if (token.kind === 'ident') {
      const upper = token.value.toUpperCase();
      if (upper === 'NULL') return (index++, { type: 'literal', value: null, sqlType: null });
      if (upper === 'TRUE' || upper === 'FALSE') return (index++, { type: 'literal', value: upper === 'TRUE', sqlType: 'BOOL' });
      if ((upper === 'DATE' || upper === 'TIMESTAMP' || upper === 'NUMERIC') && peek(1).kind === 'string') {
        index += 2;
        const cell = cellOf(upper as FieldType, peek(-1).value);
        if (cell !== null && typeof cell === 'object' && 'error' in cell) throw invalidQuery(`Invalid ${upper} literal: ${peek(-1).value}`);
        return { type: 'literal', value: cell as Cell, sqlType: upper as FieldType };
      }
      if (peek(1).kind === 'punct' && peek(1).value === '(') {
        index += 2;
        const args: Expr[] = [];
        if (!isPunct(')')) {
          args.push(expr());
          while (acceptPunct(',')) args.push(expr());
        }
        punct(')');
        return { type: 'call', name: upper, args };
      }
    }
    if (token.kind === 'ident' || token.kind === 'quoted') {
      const first = name();
      if (acceptPunct('.')) return { type: 'column', table: first, name: name() };
      return { type: 'column', table: null, name: first };
    }
    return fail('expression');
  }

  function select(): Statement {
    word('SELECT');
    const items: SelectItem[] = [];
    do {
      if (acceptPunct('*')) items.push({ star: true, table: null });
      else if ((peek().kind === 'ident' || peek().kind === 'quoted') && peek(1).value === '.' && peek(2).value === '*') {
        const table = name();
        index += 2;
        items.push({ star: true, table });
      } else {
        const value = expr();
        const alias = acceptWord('AS') ? name() : peek().kind === 'ident' && !RESERVED.has(peek().value.toUpperCase()) ? name() : null;
        items.push({ star: false, expr: value, alias });
      }
    } while (acceptPunct(','));
    word('FROM');
    const from = tableRef(true);
    const where = acceptWord('WHERE') ? expr() : null;
    const orderBy: Array<{ expr: Expr; desc: boolean }> = [];
    if (acceptWord('ORDER')) {
      word('BY');
      do {
        const value = expr();
        const desc = acceptWord('DESC') ? true : (acceptWord('ASC'), false);
        orderBy.push({ expr: value, desc });
      } while (acceptPunct(','));
    }
    let limit: number | null = null;
    if (acceptWord('LIMIT')) {
      const token = peek();
      if (token.kind !== 'number' || !/^\d+$/.test(token.value)) fail('integer literal');
      index++;
      limit = Number(token.value);
    }
    return { kind: 'SELECT', items, from, where, orderBy, limit };
  }

  function setList() {
    const set: Array<{ column: string; expr: Expr }> = [];
    do {
      let column = name();
      if (acceptPunct('.')) column = name();
      punct('=');
      set.push({ column, expr: expr() });
    } while (acceptPunct(','));
    return set;
  }

  function merge(): Statement {
    word('MERGE');
    acceptWord('INTO');
    const target = tableRef(true);
    word('USING');
    if (isPunct('(')) throw invalidQuery('The sandbox MERGEs from a table, not a subquery: USING `project.dataset.table` S');
    const source = tableRef(true);
    word('ON');
    const on = expr();
    const clauses: MergeClause[] = [];
    while (acceptWord('WHEN')) {
      const negated = acceptWord('NOT');
      word('MATCHED');
      let when: MergeClause['when'] = 'matched';
      if (negated) {
        when = 'notMatchedByTarget';
        if (acceptWord('BY')) {
          if (acceptWord('SOURCE')) when = 'notMatchedBySource';
          else word('TARGET');
        }
      }
      const condition = acceptWord('AND') ? expr() : null;
      word('THEN');
      if (when === 'notMatchedByTarget') {
        word('INSERT');
        if (acceptWord('ROW')) clauses.push({ when, condition, action: { type: 'insertRow' } });
        else {
          let columns: string[] | null = null;
          if (acceptPunct('(')) {
            columns = [name()];
            while (acceptPunct(',')) columns.push(name());
            punct(')');
          }
          word('VALUES');
          punct('(');
          const values = [expr()];
          while (acceptPunct(',')) values.push(expr());
          punct(')');
          clauses.push({ when, condition, action: { type: 'insert', columns, values } });
        }
      } else if (acceptWord('DELETE')) {
        clauses.push({ when, condition, action: { type: 'delete' } });
      } else {
        word('UPDATE');
        word('SET');
        clauses.push({ when, condition, action: { type: 'update', set: setList() } });
      }
    }
    if (clauses.length === 0) fail('keyword WHEN');
    return { kind: 'MERGE', target, source, on, clauses };
  }

  let statement: Statement;
  if (isWord('SELECT')) statement = select();
  else if (isWord('MERGE')) statement = merge();
  else if (isWord('DROP')) {
    index++;
    word('TABLE');
    const ifExists = acceptWord('IF') ? (word('EXISTS'), true) : false;
    statement = { kind: 'DROP_TABLE', table: tableRef(false), ifExists };
  } else {
    throw invalidQuery(
      `The sandbox's BigQuery runs only SELECT … FROM … [WHERE] [ORDER BY] [LIMIT], MERGE … USING … and DROP TABLE; got "${sql.trim().slice(0, 60)}"`,
    );
  }
  acceptPunct(';');
  if (peek().kind !== 'end') fail('end of input');
  return statement;
}

/** One named query parameter's value as a cell. */
function parameterCell(parameter: Json): { value: Cell; sqlType: FieldType } {
  const type = String((parameter.parameterType as Json | undefined)?.type ?? 'STRING').toUpperCase();
  const sqlType = standardType(type);
  if (!sqlType) throw invalidQuery(`Query parameter '${String(parameter.name)}': the sandbox does not support parameters of type ${type}`);
  const raw = (parameter.parameterValue as Json | undefined)?.value;
  const cell = cellOf(sqlType, raw);
  if (cell !== null && typeof cell === 'object' && 'error' in cell) throw invalidQuery(`Query parameter '${String(parameter.name)}': ${cell.error}`);
  return { value: cell as Cell, sqlType };
}

interface Scope {
  tables: Map<string, { fields: Field[]; row: Row | null }>;
  params: Map<string, { value: Cell; sqlType: FieldType }>;
}

const kindOf = (cell: Cell) =>
  cell === null ? 'NULL' : typeof cell === 'number' || cell instanceof Numeric ? 'number' : cell instanceof Timestamp ? 'timestamp' : typeof cell;

/** -1, 0, 1, or null when either side is NULL; BigQuery refuses comparing unlike types. */
function compareCells(left: Cell, right: Cell): number | null {
  if (left === null || right === null) return null;
  let a: string | number | boolean = left instanceof Numeric ? Number(left.text) : left instanceof Timestamp ? left.micros : left;
  let b: string | number | boolean = right instanceof Numeric ? Number(right.text) : right instanceof Timestamp ? right.micros : right;
  if (left instanceof Timestamp && typeof right === 'string') b = timestampOf(right)?.micros ?? NaN;
  if (right instanceof Timestamp && typeof left === 'string') a = timestampOf(left)?.micros ?? NaN;
  if (typeof a !== typeof b) throw invalidQuery(`No matching signature for operator for argument types: ${kindOf(left)}, ${kindOf(right)}`);
  return a < b ? -1 : a > b ? 1 : 0;
}

function evaluate(expression: Expr, scope: Scope): Cell {
  switch (expression.type) {
    case 'literal':
      return expression.value;
    case 'param': {
      const parameter = scope.params.get(expression.name);
      if (!parameter) throw invalidQuery(`Query parameter '${expression.name}' not found`);
      return parameter.value;
    }
    case 'column':
      return resolveColumn(expression, scope).value;
    case 'negate': {
      const value = evaluate(expression.value, scope);
      if (value === null) return null;
      if (typeof value === 'number') return -value;
      if (value instanceof Numeric) return new Numeric(value.text.startsWith('-') ? value.text.slice(1) : `-${value.text}`);
      throw invalidQuery('No matching signature for operator - for this argument type');
    }
    case 'call': {
      const args = expression.args.map((arg) => evaluate(arg, scope));
      if (expression.name === 'IFNULL') {
        if (args.length !== 2) throw invalidQuery('IFNULL takes two arguments');
        return args[0] ?? args[1]!;
      }
      if (expression.name === 'COALESCE') return args.find((arg) => arg !== null) ?? null;
      if (expression.name === 'CURRENT_TIMESTAMP' && args.length === 0) return new Timestamp(Date.now() * 1000);
      if (expression.name === 'CURRENT_DATE' && args.length === 0) return new Date().toISOString().slice(0, 10);
      throw invalidQuery(`Function not found: ${expression.name} (the sandbox knows IFNULL, COALESCE, CURRENT_TIMESTAMP and CURRENT_DATE)`);
    }
    case 'compare': {
      const order = compareCells(evaluate(expression.left, scope), evaluate(expression.right, scope));
      if (order === null) return null;
      return { '=': order === 0, '!=': order !== 0, '<': order < 0, '<=': order <= 0, '>': order > 0, '>=': order >= 0 }[expression.op]!;
    }
    case 'between': {
      const value = evaluate(expression.value, scope);
      const low = compareCells(value, evaluate(expression.low, scope));
      const high = compareCells(value, evaluate(expression.high, scope));
      if (low === null || high === null) return null;
      const inside = low >= 0 && high <= 0;
      return expression.not ? !inside : inside;
    }
    case 'in': {
      const value = evaluate(expression.value, scope);
      if (value === null) return null;
      const found = expression.list.some((item) => compareCells(value, evaluate(item, scope)) === 0);
      return expression.not ? !found : found;
    }
    case 'isNull': {
      const isNull = evaluate(expression.value, scope) === null;
      return expression.not ? !isNull : isNull;
    }
    case 'not': {
      const value = truth(evaluate(expression.value, scope));
      return value === null ? null : !value;
    }
    case 'and': {
      const left = truth(evaluate(expression.left, scope));
      if (left === false) return false;
      const right = truth(evaluate(expression.right, scope));
      if (right === false) return false;
      return left === null || right === null ? null : true;
    }
    case 'or': {
      const left = truth(evaluate(expression.left, scope));
      if (left === true) return true;
      const right = truth(evaluate(expression.right, scope));
      if (right === true) return true;
      return left === null || right === null ? null : false;
    }
  }
}

function truth(cell: Cell): boolean | null {
  if (cell === null || typeof cell === 'boolean') return cell;
  throw invalidQuery(`Expected a BOOL expression, got ${kindOf(cell)}`);
}

function resolveColumn(column: { table: string | null; name: string }, scope: Scope): { value: Cell; field: Field } {
  const candidates = column.table
    ? [scope.tables.get(column.table)].filter((entry): entry is NonNullable<typeof entry> => Boolean(entry))
    : [...scope.tables.values()].filter((entry) => entry.fields.some((field) => field.name === column.name));
  if (column.table && candidates.length === 0) throw invalidQuery(`Unrecognized name: ${column.table}`);
  if (candidates.length > 1) throw invalidQuery(`Column name ${column.name} is ambiguous`);
  const entry = candidates[0];
  const field = entry?.fields.find((candidate) => candidate.name === column.name);
  if (!entry || !field) throw invalidQuery(`Unrecognized name: ${column.table ? `${column.table}.` : ''}${column.name}`);
  return { value: entry.row ? (entry.row[field.name] ?? null) : null, field };
}

/** A value stored into a column of `type`: BigQuery coerces INT64 to NUMERIC/FLOAT64 and string literals to DATE/TIMESTAMP. */
function coerce(cell: Cell, field: Field, what: string): Cell {
  if (cell === null) {
    if (field.mode === 'REQUIRED') throw invalidQuery(`Cannot set required field ${field.name} to NULL in ${what}`);
    return null;
  }
  const type = standardType(field.type)!;
  const mismatch = () => invalidQuery(`Value of type ${kindOf(cell)} cannot be assigned to ${field.name}, which has type ${field.type}`);
  switch (type) {
    case 'STRING':
    case 'DATETIME':
      if (typeof cell === 'string') return cell;
      throw mismatch();
    case 'DATE':
      if (typeof cell === 'string' && validDate(cell)) return cell;
      throw mismatch();
    case 'INT64':
      if (typeof cell === 'number' && Number.isInteger(cell)) return cell;
      throw mismatch();
    case 'FLOAT64':
      if (typeof cell === 'number') return cell;
      if (cell instanceof Numeric) return Number(cell.text);
      throw mismatch();
    case 'NUMERIC':
    case 'BIGNUMERIC':
      if (cell instanceof Numeric) return cell;
      if (typeof cell === 'number' && Number.isInteger(cell)) return new Numeric(String(cell));
      throw mismatch();
    case 'BOOL':
      if (typeof cell === 'boolean') return cell;
      throw mismatch();
    case 'TIMESTAMP':
      if (cell instanceof Timestamp) return cell;
      if (typeof cell === 'string' && timestampOf(cell)) return timestampOf(cell)!;
      throw mismatch();
  }
}

function inferredType(cell: Cell): FieldType {
  if (cell instanceof Numeric) return 'NUMERIC';
  if (cell instanceof Timestamp) return 'TIMESTAMP';
  if (typeof cell === 'number') return Number.isInteger(cell) ? 'INT64' : 'FLOAT64';
  if (typeof cell === 'boolean') return 'BOOL';
  return 'STRING';
}

interface QueryOutcome {
  statementType: string;
  result?: { fields: Field[]; rows: Row[] };
  dml?: { inserted: number; updated: number; deleted: number };
  /** An error of the running job (the statement parsed, but failed). */
  runtimeError?: string;
}

/** Runs one statement of the subset against the warehouse. Parse and reference errors throw; a failed run is in `runtimeError`. */
function runQuery(warehouse: Warehouse, projectId: string, config: Json): QueryOutcome {
  if (config.useLegacySql === true) throw invalidQuery('The sandbox runs GoogleSQL only: set useLegacySql to false');
  const sql = String(config.query ?? '');
  if (!sql.trim()) throw invalid('Required parameter is missing: query');
  warehouse.queries.push(sql);
  const statement = parse(sql);
  const params = new Map<string, { value: Cell; sqlType: FieldType }>();
  for (const parameter of (config.queryParameters as Json[] | undefined) ?? []) {
    if (typeof parameter.name !== 'string') throw invalidQuery('The sandbox supports named query parameters only (parameterMode NAMED)');
    params.set(parameter.name, parameterCell(parameter));
  }
  const defaultDataset = config.defaultDataset as { projectId?: string; datasetId?: string } | undefined;
  const resolve = (ref: TableRef) => {
    const path = ref.path;
    if (path.length === 3) return warehouse.table(path[0]!, path[1]!, path[2]!);
    if (path.length === 2) return warehouse.table(projectId, path[0]!, path[1]!);
    if (path.length === 1 && defaultDataset?.datasetId) return warehouse.table(defaultDataset.projectId ?? projectId, defaultDataset.datasetId, path[0]!);
    throw invalidQuery(`Table "${path.join('.')}" must be qualified with a dataset (e.g. dataset.table).`);
  };

  if (statement.kind === 'DROP_TABLE') {
    let found: Table;
    try {
      found = resolve(statement.table);
    } catch (error) {
      if (statement.ifExists && error instanceof BigQueryError && error.code === 404) return { statementType: 'DROP_TABLE' };
      throw error;
    }
    const owner = warehouse.dataset(found.projectId, found.datasetId);
    warehouse.writable(owner, 'bigquery.tables.delete');
    owner.tables.delete(found.tableId);
    return { statementType: 'DROP_TABLE' };
  }

  if (statement.kind === 'SELECT') {
    const source = resolve(statement.from);
    const scopeOf = (row: Row): Scope => ({ tables: new Map([[statement.from.alias, { fields: source.fields, row }]]), params });
    let rows = source.rows.filter((row) => !statement.where || truth(evaluate(statement.where, scopeOf(row))) === true);
    const fields: Field[] = [];
    const columns: Array<(row: Row) => Cell> = [];
    statement.items.forEach((item, position) => {
      if (item.star) {
        if (item.table && item.table !== statement.from.alias) throw invalidQuery(`Unrecognized name: ${item.table}`);
        for (const field of source.fields) {
          fields.push({ ...field });
          columns.push((row) => row[field.name] ?? null);
        }
        return;
      }
      const field = item.expr.type === 'column' ? resolveColumn(item.expr, { tables: new Map([[statement.from.alias, { fields: source.fields, row: null }]]), params }).field : null;
      const sample = rows.map((row) => evaluate(item.expr, scopeOf(row))).find((cell) => cell !== null) ?? null;
      const literalType = item.expr.type === 'literal' ? item.expr.sqlType : item.expr.type === 'param' ? (params.get(item.expr.name)?.sqlType ?? null) : null;
      fields.push({ name: item.alias ?? field?.name ?? `f${position}_`, type: field?.type ?? literalType ?? inferredType(sample), mode: 'NULLABLE' });
      columns.push((row) => evaluate(item.expr, scopeOf(row)));
    });
    if (statement.orderBy.length > 0) {
      const keyOf = (row: Row) =>
        statement.orderBy.map(({ expr }) => {
          if (expr.type === 'column' && !expr.table) {
            const index = statement.items.findIndex((item) => !item.star && item.alias === expr.name);
            if (index >= 0) return columns[index]!(row);
          }
          return evaluate(expr, scopeOf(row));
        });
      const keyed = rows.map((row) => ({ row, key: keyOf(row) }));
      keyed.sort((a, b) => {
        for (const [index, { desc }] of statement.orderBy.entries()) {
          const left = a.key[index]!;
          const right = b.key[index]!;
          // NULLs first ascending, last descending, as BigQuery orders them.
          const order = left === null && right === null ? 0 : left === null ? -1 : right === null ? 1 : compareCells(left, right)!;
          if (order !== 0) return desc ? -order : order;
        }
        return 0;
      });
      rows = keyed.map(({ row }) => row);
    }
    if (statement.limit !== null) rows = rows.slice(0, statement.limit);
    const names = fields.map((field) => field.name);
    return { statementType: 'SELECT', result: { fields, rows: rows.map((row) => Object.fromEntries(columns.map((column, index) => [names[index]!, column(row)]))) } };
  }

  // MERGE
  const target = resolve(statement.target);
  const source = resolve(statement.source);
  if (statement.target.alias === statement.source.alias) throw invalidQuery(`Duplicate alias ${statement.target.alias}`);
  warehouse.writable(warehouse.dataset(target.projectId, target.datasetId), 'bigquery.tables.updateData');
  const scope = (targetRow: Row | null, sourceRow: Row | null): Scope => ({
    tables: new Map([
      [statement.target.alias, { fields: target.fields, row: targetRow }],
      [statement.source.alias, { fields: source.fields, row: sourceRow }],
    ]),
    params,
  });
  const holds = (condition: Expr | null, context: Scope) => condition === null || truth(evaluate(condition, context)) === true;
  const matchedSources = new Set<number>();
  const stats = { inserted: 0, updated: 0, deleted: 0 };
  const kept: Row[] = [];
  const fieldOf = (column: string) => {
    const field = target.fields.find((candidate) => candidate.name === column);
    if (!field) throw invalidQuery(`Name ${column} not found inside ${statement.target.alias}`);
    return field;
  };
  const update = (row: Row, set: Array<{ column: string; expr: Expr }>, context: Scope): Row => {
    const next = { ...row };
    for (const { column, expr } of set) next[column] = coerce(evaluate(expr, context), fieldOf(column), 'UPDATE');
    return next;
  };
  const candidatesOf = equalityIndex(statement.on, statement.target.alias, statement.source.alias, source.rows, (targetRow, sourceRow) => scope(targetRow, sourceRow));
  try {
    for (const row of target.rows) {
      const matches = candidatesOf(row).filter((index) => truth(evaluate(statement.on, scope(row, source.rows[index]!))) === true);
      if (matches.length > 0) {
        matches.forEach((index) => matchedSources.add(index));
        const clause = statement.clauses.find((candidate) => candidate.when === 'matched' && holds(candidate.condition, scope(row, source.rows[matches[0]!]!)));
        if (!clause) {
          kept.push(row);
          continue;
        }
        if (matches.length > 1) return { statementType: 'MERGE', runtimeError: 'UPDATE/MERGE must match at most one source row for each target row' };
        const context = scope(row, source.rows[matches[0]!]!);
        if (clause.action.type === 'delete') stats.deleted += 1;
        else if (clause.action.type === 'update') {
          kept.push(update(row, clause.action.set, context));
          stats.updated += 1;
        }
        continue;
      }
      const clause = statement.clauses.find((candidate) => candidate.when === 'notMatchedBySource' && holds(candidate.condition, scope(row, null)));
      if (!clause) kept.push(row);
      else if (clause.action.type === 'delete') stats.deleted += 1;
      else if (clause.action.type === 'update') {
        kept.push(update(row, clause.action.set, scope(row, null)));
        stats.updated += 1;
      }
    }
    source.rows.forEach((row, index) => {
      if (matchedSources.has(index)) return;
      const context = scope(null, row);
      const clause = statement.clauses.find((candidate) => candidate.when === 'notMatchedByTarget' && holds(candidate.condition, context));
      if (!clause || (clause.action.type !== 'insertRow' && clause.action.type !== 'insert')) return;
      const inserted: Row = Object.fromEntries(target.fields.map((field) => [field.name, null]));
      if (clause.action.type === 'insertRow') {
        if (source.fields.length !== target.fields.length) {
          throw invalidQuery(`INSERT ROW needs the source (${source.fields.length} columns) and target (${target.fields.length} columns) to have the same number of columns`);
        }
        target.fields.forEach((field, position) => {
          inserted[field.name] = coerce(row[source.fields[position]!.name] ?? null, field, 'INSERT ROW');
        });
      } else {
        const columns = clause.action.columns ?? target.fields.map((field) => field.name);
        if (columns.length !== clause.action.values.length) throw invalidQuery('Inserted row has wrong column count');
        columns.forEach((column, position) => {
          inserted[column] = coerce(evaluate((clause.action as { values: Expr[] }).values[position]!, context), fieldOf(column), 'INSERT');
        });
      }
      for (const field of target.fields) if (field.mode === 'REQUIRED' && inserted[field.name] === null) throw invalidQuery(`Required field ${field.name} cannot be NULL`);
      kept.push(inserted);
      stats.inserted += 1;
    });
  } catch (error) {
    if (error instanceof BigQueryError) return { statementType: 'MERGE', runtimeError: error.message };
    throw error;
  }
  target.rows = kept;
  target.lastModifiedTime = Date.now();
  return { statementType: 'MERGE', dml: stats };
}

// ---------------------------------------------------------------------------------------------
// The HTTP surface

async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const jsonBody = async (req: IncomingMessage): Promise<Json> => {
  const text = (await rawBody(req)).toString('utf8');
  try {
    return text ? (JSON.parse(text) as Json) : {};
  } catch {
    throw invalid('Invalid JSON payload received.');
  }
};

/** Rows in BigQuery's `{f: [{v}]}` form. */
const wireRows = (rows: Row[], fields: Field[], int64Timestamps: boolean) => rows.map((row) => ({ f: fields.map((field) => ({ v: wireOf(row[field.name] ?? null, int64Timestamps) })) }));

/** A page of rows: `pageToken` is the next offset, `startIndex` a starting row. */
function pageOf<T>(rows: T[], url: URL, bodyMax?: unknown): { page: T[]; pageToken?: string } {
  const max = Number(url.searchParams.get('maxResults') ?? bodyMax ?? 100_000);
  const start = Number(url.searchParams.get('pageToken') ?? url.searchParams.get('startIndex') ?? 0);
  const size = Number.isFinite(max) && max >= 0 ? Math.min(max, 100_000) : 100_000;
  const page = rows.slice(start, start + size);
  return { page, ...(start + size < rows.length ? { pageToken: String(start + size) } : {}) };
}

const int64TimestampsOf = (url: URL, body?: Json) =>
  url.searchParams.get('formatOptions.useInt64Timestamp') === 'true' || (body?.formatOptions as Json | undefined)?.useInt64Timestamp === true;

function queryResponse(job: Job, url: URL, body?: Json) {
  const reference = { projectId: job.projectId, jobId: job.jobId, location: job.location };
  const result = job.result;
  const rows = result?.rows ?? [];
  const { page, pageToken } = pageOf(rows, url, body?.maxResults);
  return {
    kind: 'bigquery#getQueryResultsResponse',
    etag: String(job.creationTime),
    jobReference: reference,
    jobComplete: true,
    cacheHit: false,
    totalBytesProcessed: '0',
    ...(result ? { schema: { fields: result.fields }, totalRows: String(rows.length), rows: wireRows(page, result.fields, int64TimestampsOf(url, body)) } : { totalRows: '0' }),
    ...(pageToken ? { pageToken } : {}),
    ...(job.dml ? { numDmlAffectedRows: String(job.dml.inserted + job.dml.updated + job.dml.deleted), dmlStats: { insertedRowCount: String(job.dml.inserted), updatedRowCount: String(job.dml.updated), deletedRowCount: String(job.dml.deleted) } } : {}),
  };
}

export function createBigQuery(store: SandboxStore): SandboxPlatform & { data: SandboxBigQuery; page: () => string } {
  const warehouse = createWarehouse();

  const unauthenticated = (res: ServerResponse) =>
    json(
      res,
      401,
      {
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
          errors: [{ message: 'Invalid Credentials', domain: 'global', reason: 'authError', location: 'Authorization', locationType: 'header' }],
          status: 'UNAUTHENTICATED',
        },
      },
      { 'WWW-Authenticate': 'Bearer realm="https://accounts.google.com/"' },
    );

  function newJob(projectId: string, body: Json): Job {
    const reference = (body.jobReference as { jobId?: string; location?: string; projectId?: string } | undefined) ?? {};
    const jobId = reference.jobId ?? `job_${randomUUID().replace(/-/g, '_')}`;
    if (!/^[\w-]{1,1024}$/.test(jobId)) throw invalid(`Invalid job ID "${jobId}".`);
    if (warehouse.jobs.has(`${projectId}/${jobId}`)) throw new BigQueryError(409, 'duplicate', `Already Exists: Job ${projectId}:${LOCATION}.${jobId}`);
    return { projectId, jobId, location: reference.location ?? LOCATION, configuration: (body.configuration as Json) ?? {}, creationTime: Date.now(), errors: null, statistics: {} };
  }

  function runQueryJob(job: Job, config: Json) {
    job.configuration = { ...job.configuration, jobType: 'QUERY', query: config };
    const outcome = runQuery(warehouse, job.projectId, config);
    job.statementType = outcome.statementType;
    job.result = outcome.result;
    job.dml = outcome.dml;
    if (outcome.runtimeError) job.errors = [{ reason: 'invalidQuery', message: outcome.runtimeError, location: 'query' }];
    job.statistics = {
      totalBytesProcessed: '0',
      query: {
        statementType: outcome.statementType,
        totalBytesProcessed: '0',
        ...(outcome.dml
          ? {
              numDmlAffectedRows: String(outcome.dml.inserted + outcome.dml.updated + outcome.dml.deleted),
              dmlStats: { insertedRowCount: String(outcome.dml.inserted), updatedRowCount: String(outcome.dml.updated), deletedRowCount: String(outcome.dml.deleted) },
            }
          : {}),
      },
    };
    warehouse.jobs.set(`${job.projectId}/${job.jobId}`, job);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL, projectId: string | undefined, rest: string) {
    const method = req.method ?? 'GET';
    if (projectId === undefined) {
      if (method !== 'GET') throw notFound(url.pathname);
      return json(res, 200, {
        kind: 'bigquery#projectList',
        etag: 'sandbox',
        totalItems: BIGQUERY_PROJECTS.length,
        projects: BIGQUERY_PROJECTS.map((project) => ({
          kind: 'bigquery#project',
          id: project.id,
          numericId: '12345',
          projectReference: { projectId: project.id },
          friendlyName: project.friendlyName,
        })),
      });
    }
    let match: RegExpExecArray | null;
    if (rest === '/datasets' && method === 'POST') {
      const body = await jsonBody(req);
      const reference = (body.datasetReference as { datasetId?: string; projectId?: string } | undefined) ?? {};
      const datasetId = String(reference.datasetId ?? '');
      if (!DATASET_ID.test(datasetId)) throw invalid(`Invalid dataset ID "${datasetId}". Dataset IDs must be alphanumeric (plus underscores) and must be at most 1024 characters long.`);
      if (reference.projectId && reference.projectId !== projectId) throw invalid(`Dataset project ${reference.projectId} does not match the request's project ${projectId}`);
      if (!BIGQUERY_PROJECTS.some((project) => project.id === projectId)) throw notFound(`Project ${projectId}`);
      const key = `${projectId}:${datasetId}`;
      if (warehouse.datasets.has(key)) throw new BigQueryError(409, 'duplicate', `Already Exists: Dataset ${key}`);
      const now = Date.now();
      const created: Dataset = {
        projectId,
        datasetId,
        location: typeof body.location === 'string' ? body.location : LOCATION,
        readOnly: false,
        creationTime: now,
        lastModifiedTime: now,
        ...(typeof body.description === 'string' ? { description: body.description } : {}),
        ...(body.labels ? { labels: body.labels as Record<string, string> } : {}),
        tables: new Map(),
      };
      warehouse.datasets.set(key, created);
      return json(res, 200, datasetResource(store, created));
    }
    if (rest === '/datasets' && method === 'GET') {
      const list = [...warehouse.datasets.values()].filter((owner) => owner.projectId === projectId);
      return json(res, 200, {
        kind: 'bigquery#datasetList',
        etag: 'sandbox',
        datasets: list.map((owner) => ({ kind: 'bigquery#dataset', id: `${projectId}:${owner.datasetId}`, datasetReference: { projectId, datasetId: owner.datasetId }, location: owner.location })),
      });
    }
    if ((match = /^\/datasets\/([^/]+)$/.exec(rest)) && method === 'GET') return json(res, 200, datasetResource(store, warehouse.dataset(projectId, decodeURIComponent(match[1]!))));
    if ((match = /^\/datasets\/([^/]+)\/tables$/.exec(rest))) {
      const owner = warehouse.dataset(projectId, decodeURIComponent(match[1]!));
      if (method === 'GET') {
        const tables = warehouse.liveTables().filter((candidate) => candidate.projectId === projectId && candidate.datasetId === owner.datasetId);
        return json(res, 200, { kind: 'bigquery#tableList', etag: 'sandbox', totalItems: tables.length, tables: tables.map((found) => ({ kind: 'bigquery#table', id: `${projectId}:${owner.datasetId}.${found.tableId}`, tableReference: { projectId, datasetId: owner.datasetId, tableId: found.tableId }, type: 'TABLE' })) });
      }
      if (method === 'POST') {
        const body = await jsonBody(req);
        const tableId = String((body.tableReference as { tableId?: string } | undefined)?.tableId ?? '');
        warehouse.writable(owner, 'bigquery.tables.create');
        try {
          warehouse.table(projectId, owner.datasetId, tableId);
          throw new BigQueryError(409, 'duplicate', `Already Exists: Table ${projectId}:${owner.datasetId}.${tableId}`);
        } catch (error) {
          if (!(error instanceof BigQueryError) || error.code !== 404) throw error;
        }
        const created = newTable(projectId, owner.datasetId, tableId, body);
        owner.tables.set(tableId, created);
        return json(res, 200, tableResource(store, created));
      }
    }
    if ((match = /^\/datasets\/([^/]+)\/tables\/([^/]+)$/.exec(rest))) {
      const found = warehouse.table(projectId, decodeURIComponent(match[1]!), decodeURIComponent(match[2]!));
      if (method === 'GET') return json(res, 200, tableResource(store, found));
      if (method === 'DELETE') {
        const owner = warehouse.dataset(projectId, found.datasetId);
        warehouse.writable(owner, 'bigquery.tables.delete');
        owner.tables.delete(found.tableId);
        res.writeHead(204);
        return res.end();
      }
    }
    if ((match = /^\/datasets\/([^/]+)\/tables\/([^/]+)\/data$/.exec(rest)) && method === 'GET') {
      const found = warehouse.table(projectId, decodeURIComponent(match[1]!), decodeURIComponent(match[2]!));
      const selected = url.searchParams.get('selectedFields')?.split(',');
      const fields = selected ? found.fields.filter((field) => selected.includes(field.name)) : found.fields;
      const { page, pageToken } = pageOf(found.rows, url);
      return json(res, 200, {
        kind: 'bigquery#tableDataList',
        etag: String(found.lastModifiedTime),
        totalRows: String(found.rows.length),
        ...(pageToken ? { pageToken } : {}),
        rows: wireRows(page, fields, int64TimestampsOf(url)),
      });
    }
    if (rest === '/jobs' && method === 'POST') {
      const body = await jsonBody(req);
      const job = newJob(projectId, body);
      const configuration = job.configuration;
      if (configuration.query) {
        runQueryJob(job, configuration.query as Json);
        return json(res, 200, jobResource(store, job));
      }
      if (configuration.load) throw invalid('The sandbox loads data only through the upload endpoint (multipart), not from sourceUris');
      throw invalid('The sandbox runs query and load jobs only');
    }
    if ((match = /^\/jobs\/([^/]+)$/.exec(rest)) && method === 'GET') {
      const job = warehouse.jobs.get(`${projectId}/${decodeURIComponent(match[1]!)}`);
      if (!job) throw notFound(`Job ${projectId}:${url.searchParams.get('location') ?? LOCATION}.${match[1]}`);
      return json(res, 200, jobResource(store, job));
    }
    if (rest === '/queries' && method === 'POST') {
      const body = await jsonBody(req);
      const job = newJob(projectId, { jobReference: { location: body.location } });
      runQueryJob(job, { query: body.query, useLegacySql: body.useLegacySql, parameterMode: body.parameterMode, queryParameters: body.queryParameters, defaultDataset: body.defaultDataset });
      if (job.errors) throw invalidQuery(job.errors[0]!.message);
      return json(res, 200, { ...queryResponse(job, url, body), kind: 'bigquery#queryResponse' });
    }
    if ((match = /^\/queries\/([^/]+)$/.exec(rest)) && method === 'GET') {
      const job = warehouse.jobs.get(`${projectId}/${decodeURIComponent(match[1]!)}`);
      if (!job) throw notFound(`Job ${projectId}:${url.searchParams.get('location') ?? LOCATION}.${match[1]}`);
      if (job.errors) throw invalidQuery(job.errors[0]!.message);
      if (!job.statementType) throw invalid(`Job ${job.jobId} is not a query job`);
      return json(res, 200, queryResponse(job, url));
    }
    throw notFound(`${method} ${url.pathname}`);
  }

  async function upload(req: IncomingMessage, res: ServerResponse, url: URL, projectId: string) {
    if (req.method !== 'POST') throw notFound(url.pathname);
    if (url.searchParams.get('uploadType') !== 'multipart') throw invalid('The sandbox takes uploadType=multipart uploads only');
    const [metadata, data] = multipartParts(await rawBody(req), req.headers['content-type'] ?? '');
    let body: Json;
    try {
      body = JSON.parse(metadata) as Json;
    } catch {
      throw invalid('Invalid JSON payload received in the upload metadata.');
    }
    if (!BIGQUERY_PROJECTS.some((project) => project.id === projectId)) throw notFound(`Project ${projectId}`);
    const job = newJob(projectId, body);
    const load = (job.configuration.load as Json | undefined) ?? null;
    if (!load) throw invalid('An upload must carry a load job configuration');
    job.configuration = { ...job.configuration, jobType: 'LOAD' };
    const outcome = runLoad(warehouse, projectId, load, data);
    job.errors = outcome.errors;
    job.statistics = { load: { inputFiles: '1', inputFileBytes: String(Buffer.byteLength(data)), outputRows: String(outcome.outputRows), outputBytes: '0', badRecords: outcome.errors ? '1' : '0' } };
    warehouse.jobs.set(`${projectId}/${job.jobId}`, job);
    return json(res, 200, jobResource(store, job));
  }

  const data: SandboxBigQuery = {
    rows(projectId, datasetId, tableId) {
      const found = warehouse.table(projectId, datasetId, tableId);
      return found.rows.map((row) => Object.fromEntries(found.fields.map((field) => [field.name, plainOf(row[field.name] ?? null)])));
    },
    table(projectId, datasetId, tableId) {
      try {
        return tableResource(store, warehouse.table(projectId, datasetId, tableId));
      } catch {
        return undefined;
      }
    },
    tables: () => warehouse.liveTables().map(({ projectId, datasetId, tableId }) => ({ projectId, datasetId, tableId })),
    queries: () => [...warehouse.queries],
    reset: () => warehouse.seed(),
  };

  /** The sandbox page's section: every table and its latest 200 rows. */
  function page() {
    const tables = warehouse.liveTables();
    if (tables.length === 0) return '<p class="muted">No BigQuery tables yet.</p>';
    return tables
      .map((found) => {
        const rows = found.rows.slice(-200).reverse();
        return `<h3><code>${escapeHtml(`${found.projectId}.${found.datasetId}.${found.tableId}`)}</code> — ${found.rows.length} rows${found.timePartitioning ? `, partitioned by ${escapeHtml(found.timePartitioning.field ?? '_PARTITIONTIME')}` : ''}${found.clustering ? `, clustered by ${escapeHtml(found.clustering.fields.join(', '))}` : ''}</h3>
<table><tr>${found.fields.map((field) => `<th>${escapeHtml(field.name)}</th>`).join('')}</tr>${rows
          .map((row) => `<tr>${found.fields.map((field) => `<td>${escapeHtml(plainOf(row[field.name] ?? null) ?? '')}</td>`).join('')}</tr>`)
          .join('')}</table>`;
      })
      .join('');
  }

  return {
    owns: (path) => path.startsWith('/bigquery/'),
    handle: async (req, res, url) => {
      const caller = store.bearerToken(req, url, 'google');
      if (!caller || !caller.scope.includes('/auth/bigquery')) return unauthenticated(res);
      try {
        let match: RegExpExecArray | null;
        if ((match = UPLOAD.exec(url.pathname))) return await upload(req, res, url, decodeURIComponent(match[1]!));
        if ((match = API.exec(url.pathname))) return await api(req, res, url, match[1] === undefined ? undefined : decodeURIComponent(match[1]), match[2] ?? '');
        throw notFound(url.pathname);
      } catch (error) {
        if (error instanceof BigQueryError) return json(res, error.code, errorBody(error));
        throw error;
      }
    },
    data,
    page,
  };
}


/** The table aliases an expression reads columns of (null for an unqualified column). */
function aliasesOf(expr: Expr, into = new Set<string | null>()): Set<string | null> {
  switch (expr.type) {
    case 'column':
      into.add(expr.table);
      break;
    case 'call':
      expr.args.forEach((arg) => aliasesOf(arg, into));
      break;
    case 'compare':
    case 'and':
    case 'or':
      aliasesOf(expr.left, into);
      aliasesOf(expr.right, into);
      break;
    case 'between':
      [expr.value, expr.low, expr.high].forEach((part) => aliasesOf(part, into));
      break;
    case 'in':
      [expr.value, ...expr.list].forEach((part) => aliasesOf(part, into));
      break;
    case 'isNull':
    case 'not':
    case 'negate':
      aliasesOf(expr.value, into);
      break;
    default:
      break;
  }
  return into;
}

/**
 * A MERGE's candidate source rows for a target row: the ON condition's equalities between a target
 * expression and a source expression become a hash key (as BigQuery joins), so a MERGE costs the
 * rows it touches, not table × staged rows. Every candidate is still checked against the whole ON.
 * Without such equalities, every source row is a candidate.
 */
function equalityIndex(on: Expr, targetAlias: string, sourceAlias: string, sourceRows: Row[], scopeOf: (target: Row | null, source: Row | null) => Scope): (targetRow: Row) => number[] {
  const pairs: Array<{ target: Expr; source: Expr }> = [];
  const only = (expr: Expr, alias: string) => {
    const aliases = aliasesOf(expr);
    return aliases.size === 1 && aliases.has(alias);
  };
  const collect = (expr: Expr) => {
    if (expr.type === 'and') {
      collect(expr.left);
      collect(expr.right);
    } else if (expr.type === 'compare' && expr.op === '=') {
      if (only(expr.left, targetAlias) && only(expr.right, sourceAlias)) pairs.push({ target: expr.left, source: expr.right });
      else if (only(expr.left, sourceAlias) && only(expr.right, targetAlias)) pairs.push({ target: expr.right, source: expr.left });
    }
  };
  collect(on);
  const all = sourceRows.map((_, index) => index);
  if (pairs.length === 0) return () => all;
  // SQL's = is never true with a NULL on either side: such a row matches nothing.
  const keyOf = (values: Cell[]) => (values.some((value) => value === null) ? null : JSON.stringify(values));
  const index = new Map<string, number[]>();
  sourceRows.forEach((row, position) => {
    const key = keyOf(pairs.map((pair) => evaluate(pair.source, scopeOf(null, row))));
    if (key !== null) index.set(key, [...(index.get(key) ?? []), position]);
  });
  return (targetRow) => {
    const key = keyOf(pairs.map((pair) => evaluate(pair.target, scopeOf(targetRow, null))));
    return key === null ? [] : (index.get(key) ?? []);
  };
}
