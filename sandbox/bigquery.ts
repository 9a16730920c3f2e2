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

const DATETIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/;

/** A DATETIME in one form ('YYYY-MM-DDTHH:MM:SS[.ffffff]', no trailing zeros), so that text order is time order; null when it is none. */
function datetimeText(value: string): string | null {
  const match = DATETIME.exec(value.trim());
  if (!match || !validDate(match[1]!)) return null;
  const [hours, minutes, seconds] = [match[2] ?? '00', match[3] ?? '00', match[4] ?? '00'];
  if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return null;
  const fraction = (match[5] ?? '').replace(/0+$/, '');
  return `${match[1]}T${hours}:${minutes}:${seconds}${fraction ? `.${fraction}` : ''}`;
}

/** A timestamp from text (ISO, or "YYYY-MM-DD HH:MM:SS[.ffffff] [UTC]") or seconds since the epoch. */
function timestampOf(value: unknown): Timestamp | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Timestamp(Math.round(value * 1e6));
  if (typeof value !== 'string') return null;
  const text = value
    .trim()
    .replace(/ UTC$/, 'Z')
    .replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');
  const ms = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) || !text.includes('T') ? text : `${text}Z`);
  if (Number.isNaN(ms)) return null;
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
  const micros = Math.floor(ms / 1000) * 1e6 + Number(fraction.padEnd(6, '0').slice(0, 6) || 0);
  return new Timestamp(micros);
}

/** BigQuery's words for a loaded value a column's type cannot hold. */
function conversionError(value: unknown, kind: string): { error: string } {
  const shown =
    typeof value === 'string' ? `string_value: "${value}"` : typeof value === 'number' ? `double_value: ${value}` : JSON.stringify(value);
  return { error: `Could not convert value '${shown}' to ${kind}.` };
}

/** A loaded JSON value as a cell of `type`, or the reason it cannot be one. */
function cellOf(type: FieldType, value: unknown): Cell | { error: string } {
  if (value === null || value === undefined) return null;
  // No closures here: this runs for every loaded cell.
  switch (type) {
    case 'STRING':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return conversionError(value, 'string');
    case 'DATETIME':
      return (typeof value === 'string' ? datetimeText(value) : null) ?? conversionError(value, 'datetime');
    case 'INT64': {
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) {
        // Past 2^53 a JavaScript number rounds: such a value is kept as its digits, and sent on the wire as
        // BigQuery sends every INT64 (a string), so a client that reads it as a number is the one to round.
        return Number.isSafeInteger(Number(value)) ? Number(value) : new Numeric(value.trim());
      }
      return conversionError(value, 'integer');
    }
    case 'FLOAT64': {
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return conversionError(value, 'double');
    }
    case 'NUMERIC':
    case 'BIGNUMERIC': {
      const text = typeof value === 'number' || typeof value === 'string' ? decimalText(value) : null;
      return text === null ? conversionError(value, 'NUMERIC') : new Numeric(text);
    }
    case 'BOOL':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return conversionError(value, 'boolean');
    case 'DATE':
      return typeof value === 'string' && validDate(value) ? value : conversionError(value, 'date');
    case 'TIMESTAMP':
      return timestampOf(value) ?? conversionError(value, 'timestamp');
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

/** Bytes a non-NULL cell of each fixed-size type takes, as BigQuery counts them for billing (STRING is 2 + its UTF-8 length). */
const CELL_BYTES: Record<Exclude<FieldType, 'STRING'>, number> = {
  INT64: 8,
  FLOAT64: 8,
  TIMESTAMP: 8,
  DATE: 8,
  DATETIME: 8,
  BOOL: 1,
  NUMERIC: 16,
  BIGNUMERIC: 32,
};

/** The bytes of one column over `rows`, as BigQuery sizes data: what a query reading it processes. */
function columnBytes(rows: Row[], field: Field): number {
  const type = standardType(field.type) ?? 'STRING';
  let total = 0;
  if (type === 'STRING') {
    for (const row of rows) {
      const cell = row[field.name];
      if (cell !== null && cell !== undefined) total += 2 + Buffer.byteLength(String(cell));
    }
    return total;
  }
  const size = CELL_BYTES[type];
  for (const row of rows) if (row[field.name] !== null && row[field.name] !== undefined) total += size;
  return total;
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

const STATUS_TEXT: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  500: 'INTERNAL',
};

const errorBody = (error: BigQueryError) => ({
  error: {
    code: error.code,
    message: error.message,
    errors: [
      {
        message: error.message,
        domain: 'global',
        reason: error.reason,
        ...(error.location ? { location: error.location, locationType: 'other' } : {}),
      },
    ],
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
  /** Bytes per column, for the rows array (and length) they were counted over. */
  sizes?: { rows: Row[]; length: number; byColumn: Map<string, number> };
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

/** A query job as the sandbox ran (or dry-ran) it, for tests to assert on. */
export interface SandboxQueryJob {
  jobId: string;
  sql: string;
  dryRun: boolean;
  statementType: string;
  /** configuration.query.maximumBytesBilled, when set. */
  maximumBytesBilled: number | null;
  /** What the query reads (estimated before it runs, as BigQuery does). */
  totalBytesProcessed: number;
  /** What it billed: 0 for a dry run or a failed job. */
  totalBytesBilled: number;
  /** Why it failed (e.g. bytesBilledLimitExceeded), or null. */
  error: { reason: string; message: string } | null;
}

/** A column as `createTable` takes it. */
export interface SandboxColumn {
  name: string;
  type: string;
  mode?: string;
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
  /** Query jobs run or dry-run (jobs.insert and jobs.query), oldest first. */
  jobs(): SandboxQueryJob[];
  /** Creates a table (and its dataset when missing); an existing table is a 409 as in the API. */
  createTable(projectId: string, datasetId: string, tableId: string, fields: SandboxColumn[]): void;
  /**
   * Appends rows, values as the NDJSON load takes them (ISO strings for TIMESTAMP, numbers or decimal
   * strings for NUMERIC, 'YYYY-MM-DD' for DATE); a value the column cannot hold throws.
   */
  insertRows(projectId: string, datasetId: string, tableId: string, rows: Array<Record<string, unknown>>): void;
  /** Forgets every dataset, table and job: the read-only dataset comes back empty, the demo source table with its rows. */
  reset(): void;
}

function createWarehouse() {
  const datasets = new Map<string, Dataset>();
  const jobs = new Map<string, Job>();
  const queries: string[] = [];
  const log: SandboxQueryJob[] = [];

  function seed() {
    datasets.clear();
    jobs.clear();
    queries.length = 0;
    log.length = 0;
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
    const demo = newTable(DEMO_SOURCE_TABLE.projectId, DEMO_SOURCE_TABLE.datasetId, DEMO_SOURCE_TABLE.tableId, {
      schema: { fields: DEMO_SOURCE_FIELDS },
      description: 'Demo CRM leads to read as a conversion source',
    });
    appendRows(demo, demoLeads(now));
    ensureDataset(DEMO_SOURCE_TABLE.projectId, DEMO_SOURCE_TABLE.datasetId).tables.set(demo.tableId, demo);
  }

  const projectOf = (projectId: string) => {
    if (!BIGQUERY_PROJECTS.some((project) => project.id === projectId)) throw notFound(`Project ${projectId}`);
  };
  const dataset = (projectId: string, datasetId: string) => {
    projectOf(projectId);
    const found = datasets.get(`${projectId}:${datasetId}`);
    if (!found) throw notFound(`Dataset ${projectId}:${datasetId}`);
    return found;
  };
  /** A writable dataset, created (in the US) when missing. */
  function ensureDataset(projectId: string, datasetId: string): Dataset {
    projectOf(projectId);
    const key = `${projectId}:${datasetId}`;
    const now = Date.now();
    if (!datasets.has(key))
      datasets.set(key, {
        projectId,
        datasetId,
        location: LOCATION,
        readOnly: false,
        creationTime: now,
        lastModifiedTime: now,
        tables: new Map(),
      });
    return datasets.get(key)!;
  }
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
  seed();
  return { datasets, jobs, queries, log, seed, dataset, ensureDataset, table, writable, liveTables };
}

/** The bytes of one column of a table, counted once per version of its rows. */
function tableColumnBytes(found: Table, field: Field): number {
  if (!found.sizes || found.sizes.rows !== found.rows || found.sizes.length !== found.rows.length) {
    found.sizes = { rows: found.rows, length: found.rows.length, byColumn: new Map() };
  }
  const known = found.sizes.byColumn.get(field.name);
  if (known !== undefined) return known;
  const bytes = columnBytes(found.rows, field);
  found.sizes.byColumn.set(field.name, bytes);
  return bytes;
}

/** Appends records (values as a NDJSON load takes them) to a table, checked against its schema. */
function appendRows(target: Table, records: Array<Record<string, unknown>>) {
  const columns = target.fields.map((field) => ({ field, type: standardType(field.type)! }));
  const names = new Set(target.fields.map((field) => field.name));
  const rows = records.map((record, index) => {
    for (const key of Object.keys(record)) if (!names.has(key)) throw invalid(`Row ${index}: no such field: ${key}.`);
    const row: Row = {};
    for (const { field, type } of columns) {
      const cell = cellOf(type, record[field.name]);
      if (cell !== null && typeof cell === 'object' && 'error' in cell) throw invalid(`Row ${index}: ${cell.error} Field: ${field.name}`);
      if (cell === null && field.mode === 'REQUIRED') throw invalid(`Row ${index}: Missing required field: ${field.name}.`);
      row[field.name] = cell;
    }
    return row;
  });
  for (const row of rows) target.rows.push(row);
  target.lastModifiedTime = Date.now();
}

// ---------------------------------------------------------------------------------------------
// The demo source table: CRM leads to read conversions from

export const DEMO_SOURCE_TABLE = { projectId: 'acme-warehouse', datasetId: 'crm', tableId: 'qualified_leads' } as const;

const DEMO_SOURCE_FIELDS: SandboxColumn[] = [
  { name: 'lead_id', type: 'STRING' },
  { name: 'email', type: 'STRING' },
  { name: 'phone', type: 'STRING' },
  { name: 'first_name', type: 'STRING' },
  { name: 'last_name', type: 'STRING' },
  { name: 'gclid', type: 'STRING' },
  { name: 'fbclid', type: 'STRING' },
  { name: 'value', type: 'NUMERIC' },
  { name: 'currency', type: 'STRING' },
  { name: 'stage', type: 'STRING' },
  { name: 'updated_at', type: 'TIMESTAMP' },
];

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Katherine', 'Linus', 'Margaret', 'Dennis', 'Barbara', 'Ken', 'Radia'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Torvalds', 'Hamilton', 'Ritchie', 'Liskov', 'Thompson', 'Perlman'];
const DEMO_LEADS = 40;
/** The lead with neither email nor phone (nor click id): nothing an ad platform could match, so it is not sent. */
export const DEMO_ANONYMOUS_LEAD = 'lead_0018';

/** 40 leads, one every 6 hours over the 10 days before `now`: every 4th won (1200.00 USD), the others qualified (250.00 USD). */
function demoLeads(now: number): Array<Record<string, unknown>> {
  const hour = 3_600_000;
  const start = Math.floor((now - 240 * hour) / 60_000) * 60_000;
  return Array.from({ length: DEMO_LEADS }, (_, index) => {
    const leadId = `lead_${String(index + 1).padStart(4, '0')}`;
    const first = FIRST_NAMES[index % FIRST_NAMES.length]!;
    const last = LAST_NAMES[(index * 3) % LAST_NAMES.length]!;
    const anonymous = leadId === DEMO_ANONYMOUS_LEAD;
    const won = index % 4 === 3;
    return {
      lead_id: leadId,
      email: anonymous ? null : `${first}.${last}${index + 1}@example.com`.toLowerCase(),
      phone: anonymous || index % 6 === 4 ? null : `+1555010${String(1000 + index * 37).slice(-4)}`,
      first_name: anonymous ? null : first,
      last_name: anonymous ? null : last,
      gclid: !anonymous && index % 3 === 0 ? `Cj0KCQiA${(index * 7919 + 104_729).toString(36)}_BwE` : null,
      fbclid: !anonymous && index % 5 === 1 ? `IwAR${(index * 15_485_863 + 32_452_843).toString(36)}` : null,
      value: won ? '1200.00' : '250.00',
      currency: 'USD',
      stage: won ? 'won' : 'qualified',
      updated_at: new Date(start + index * 6 * hour + ((index * 7) % 60) * 60_000).toISOString(),
    };
  });
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
    numBytes: String(found.fields.reduce((total, field) => total + tableColumnBytes(found, field), 0)),
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
    statistics: {
      creationTime: String(job.creationTime),
      startTime: String(job.creationTime),
      endTime: String(Date.now()),
      ...job.statistics,
    },
    status,
  };
}

/** A dry run's answer: validated, not run and not kept (its reference has no job id), DONE. */
function dryRunResource(job: Job) {
  return {
    kind: 'bigquery#job',
    etag: String(job.creationTime),
    user_email: 'signalbridge@acme-warehouse.iam.gserviceaccount.com',
    configuration: job.configuration,
    jobReference: { projectId: job.projectId, location: job.location },
    statistics: { creationTime: String(job.creationTime), ...job.statistics },
    status: { state: 'DONE' },
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
    if (!FIELD_NAME.test(name))
      throw invalid(
        `Invalid field name "${name}". Fields must contain only letters, numbers, and underscores, start with a letter or underscore, and be at most 300 characters long.`,
      );
    if (seen.has(name.toLowerCase())) throw invalid(`Field ${name} already exists in schema`);
    seen.add(name.toLowerCase());
    const type = String(raw.type ?? '').toUpperCase();
    if (type === 'RECORD' || type === 'STRUCT' || raw.mode === 'REPEATED')
      throw invalid(`Field ${name}: the sandbox supports only scalar, non-repeated columns`);
    if (!standardType(type)) throw invalid(`Invalid value for type: ${type} is not a valid value`);
    const mode = raw.mode === undefined ? undefined : String(raw.mode).toUpperCase();
    if (mode !== undefined && mode !== 'NULLABLE' && mode !== 'REQUIRED')
      throw invalid(`Invalid value for mode: ${mode} is not a valid value`);
    return {
      name,
      type,
      ...(mode ? { mode: mode as Field['mode'] } : {}),
      ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    };
  });
}

function newTable(projectId: string, datasetId: string, tableId: string, body: Json): Table {
  if (!TABLE_ID.test(tableId)) throw invalid(`Invalid table ID "${tableId}".`);
  const fields = checkedFields(body.schema);
  const partitioning = body.timePartitioning as Table['timePartitioning'] | undefined;
  if (partitioning) {
    if (!['DAY', 'HOUR', 'MONTH', 'YEAR'].includes(partitioning.type))
      throw invalid(`Invalid value for type: ${partitioning.type} is not a valid value`);
    if (partitioning.field !== undefined) {
      const field = fields.find((candidate) => candidate.name === partitioning.field);
      if (!field)
        throw invalid(`The field specified for partitioning cannot be found in the schema. Invalid field: ${partitioning.field}.`);
      const type = standardType(field.type);
      if (type !== 'DATE' && type !== 'TIMESTAMP' && type !== 'DATETIME') {
        throw invalid(
          `The field specified for time partitioning can only be of type TIMESTAMP, DATE or DATETIME. The type found is: ${field.type}.`,
        );
      }
    }
  }
  const clustering = body.clustering as Table['clustering'] | undefined;
  if (clustering) {
    if (!Array.isArray(clustering.fields) || clustering.fields.length === 0 || clustering.fields.length > 4)
      throw invalid('Too many clustering fields: at most 4 are allowed.');
    for (const name of clustering.fields) {
      if (!fields.some((field) => field.name === name))
        throw invalid(`The field specified for clustering cannot be found in the schema. Invalid field: ${name}.`);
    }
  }
  const expiration = body.expirationTime === undefined ? undefined : Number(body.expirationTime);
  if (expiration !== undefined && !Number.isFinite(expiration))
    throw invalid(`Invalid value for expirationTime: ${String(body.expirationTime)}`);
  const now = Date.now();
  return {
    projectId,
    datasetId,
    tableId,
    fields,
    ...(partitioning
      ? { timePartitioning: { type: partitioning.type, ...(partitioning.field ? { field: partitioning.field } : {}) } }
      : {}),
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
  {
    reason: 'invalid',
    message: `Error while reading data, error message: JSON processing encountered too many errors, giving up. Rows: ${rows}; errors: 1; max bad: 0; error percent: 0`,
  },
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
    const mismatch = given.find(
      (field, index) =>
        target!.fields[index]?.name !== field.name || standardType(target!.fields[index]!.type) !== standardType(field.type),
    );
    if (given.length !== target.fields.length || mismatch) {
      return {
        errors: [
          {
            reason: 'invalid',
            message: `Provided Schema does not match Table ${owner.projectId}:${owner.datasetId}.${target.tableId}. Cannot add fields (field: ${mismatch?.name ?? '?'})`,
          },
        ],
        outputRows: 0,
      };
    }
  }
  if (disposition === 'WRITE_EMPTY' && target.rows.length > 0) {
    return {
      errors: [{ reason: 'duplicate', message: `Already Exists: Table ${owner.projectId}:${owner.datasetId}.${target.tableId}` }],
      outputRows: 0,
    };
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
      return {
        errors: loadError(
          rows.length + 1,
          `Error while reading data, error message: JSON parsing error in row starting at position ${start}: Parser terminated before end of string`,
        ),
        outputRows: 0,
      };
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      return {
        errors: loadError(
          rows.length + 1,
          `Error while reading data, error message: JSON parsing error in row starting at position ${start}: Row is not a JSON object`,
        ),
        outputRows: 0,
      };
    }
    const row: Row = {};
    for (const key of Object.keys(record)) {
      if (!target.fields.some((field) => field.name === key) && load.ignoreUnknownValues !== true) {
        return {
          errors: loadError(
            rows.length + 1,
            `Error while reading data, error message: JSON parsing error in row starting at position ${start}: No such field: ${key}.`,
          ),
          outputRows: 0,
        };
      }
    }
    for (const field of target.fields) {
      const cell = cellOf(standardType(field.type)!, (record as Json)[field.name]);
      if (cell !== null && typeof cell === 'object' && 'error' in cell) {
        const value = (record as Json)[field.name];
        return {
          errors: loadError(
            rows.length + 1,
            `Error while reading data, error message: JSON parsing error in row starting at position ${start}: ${cell.error} Field: ${field.name}; Value: ${String(value)}`,
          ),
          outputRows: 0,
        };
      }
      if (cell === null && field.mode === 'REQUIRED') {
        return {
          errors: loadError(
            rows.length + 1,
            `Error while reading data, error message: JSON parsing error in row starting at position ${start}: Missing required field: ${field.name}.`,
          ),
          outputRows: 0,
        };
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
  | { type: 'param'; name: string; at: string }
  | ColumnExpr
  | { type: 'call'; name: string; args: Expr[]; at: string }
  | { type: 'compare'; op: string; left: Expr; right: Expr; at: string }
  | { type: 'between'; not: boolean; value: Expr; low: Expr; high: Expr; at: string }
  | { type: 'in'; not: boolean; value: Expr; list: Expr[]; at: string }
  | { type: 'isNull'; not: boolean; value: Expr }
  | { type: 'and' | 'or'; left: Expr; right: Expr }
  | { type: 'not'; value: Expr }
  | { type: 'negate'; value: Expr; at: string };

/** A column reference; `at` is where it stands in the SQL, "[line:column]" as BigQuery's messages say. */
interface ColumnExpr {
  type: 'column';
  table: string | null;
  name: string;
  at: string;
}

interface TableRef {
  path: string[];
  alias: string;
}

/** What a SELECT reads: a table, or a subquery (whose alias, when absent, cannot be named). */
type FromItem = ({ kind: 'table' } & TableRef) | { kind: 'subquery'; query: SelectStatement; alias: string };

type SelectItem = { star: true; table: string | null; at: string } | { star: false; expr: Expr; alias: string | null };

interface SelectStatement {
  kind: 'SELECT';
  items: SelectItem[];
  from: FromItem;
  where: { expr: Expr; at: string } | null;
  orderBy: Array<{ expr: Expr; desc: boolean }>;
  limit: number | null;
}

interface MergeStatement {
  kind: 'MERGE';
  target: TableRef;
  source: TableRef;
  on: Expr;
  clauses: MergeClause[];
}

type Statement = SelectStatement | MergeStatement | { kind: 'DROP_TABLE'; table: TableRef; ifExists: boolean };

type MergeClause =
  | {
      when: 'matched' | 'notMatchedBySource';
      condition: Expr | null;
      action: { type: 'delete' } | { type: 'update'; set: Array<{ column: string; expr: Expr }> };
    }
  | {
      when: 'notMatchedByTarget';
      condition: Expr | null;
      action: { type: 'insertRow' } | { type: 'insert'; columns: string[] | null; values: Expr[] };
    };

const RESERVED = new Set([
  ...[
    'SELECT',
    'FROM',
    'WHERE',
    'ORDER',
    'BY',
    'LIMIT',
    'AND',
    'OR',
    'NOT',
    'ON',
    'USING',
    'WHEN',
    'THEN',
    'MATCHED',
    'AS',
    'BETWEEN',
    'IS',
    'NULL',
    'IN',
    'SET',
    'MERGE',
    'INTO',
  ],
  ...['DROP', 'TABLE', 'ASC', 'DESC', 'TRUE', 'FALSE', 'INSERT', 'UPDATE', 'DELETE', 'VALUES', 'ROW'],
  // Reserved in BigQuery, for what the sandbox refuses: never an alias.
  ...[
    'JOIN',
    'INNER',
    'LEFT',
    'RIGHT',
    'FULL',
    'CROSS',
    'OUTER',
    'GROUP',
    'HAVING',
    'UNION',
    'INTERSECT',
    'EXCEPT',
    'WITH',
    'DISTINCT',
    'QUALIFY',
    'WINDOW',
    'LIKE',
    'CASE',
    'EXISTS',
  ],
]);

const SUBSET = 'SELECT … FROM a table or a (SELECT …) subquery [WHERE] [ORDER BY] [LIMIT], MERGE … USING … and DROP TABLE';
const JOINS = ['JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS'];
const AGGREGATES = new Set([
  'COUNT',
  'COUNTIF',
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'ANY_VALUE',
  'ARRAY_AGG',
  'STRING_AGG',
  'LOGICAL_AND',
  'LOGICAL_OR',
]);

/** The refusal of SQL outside the subset: invalidQuery, saying what the sandbox does not run. */
const unsupported = (what: string) => invalidQuery(`The sandbox's BigQuery does not run ${what}: it runs only ${SUBSET}`);

function parse(sql: string): Statement {
  const tokens = tokenize(sql);
  let index = 0;
  const lineStarts = [0];
  for (let offset = 0; offset < sql.length; offset++) if (sql[offset] === '\n') lineStarts.push(offset + 1);
  const peek = (offset = 0) => tokens[Math.min(index + offset, tokens.length - 1)]!;
  /** Where a token stands, "[line:column]" as BigQuery's messages say. */
  const position = (token: Token) => {
    let line = lineStarts.length - 1;
    while (lineStarts[line]! > token.at) line -= 1;
    return `[${line + 1}:${token.at - lineStarts[line]! + 1}]`;
  };
  const fail = (expected: string): never => {
    const token = peek();
    throw invalidQuery(
      `Syntax error: Expected ${expected} but got ${token.kind === 'end' ? 'end of input' : `"${token.value}"`} at ${position(token)}`,
    );
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
  const isName = () => peek().kind === 'quoted' || (peek().kind === 'ident' && !RESERVED.has(peek().value.toUpperCase()));
  const name = (): string => {
    const token = peek();
    if (isName()) {
      index++;
      return token.value;
    }
    return fail('identifier');
  };
  /** `[AS] alias`, or null when there is none. */
  const optionalAlias = () => (acceptWord('AS') ? name() : isName() ? name() : null);

  function tableRef(allowAlias: boolean): TableRef {
    const parts = name().split('.');
    while (acceptPunct('.')) parts.push(...name().split('.'));
    const alias = allowAlias ? optionalAlias() : null;
    return { path: parts, alias: alias ?? parts[parts.length - 1]! };
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
    const at = position(peek());
    const left = unary();
    if (peek().kind === 'punct' && ['=', '!=', '<>', '<', '<=', '>', '>='].includes(peek().value)) {
      const op = peek().value;
      index++;
      return { type: 'compare', op: op === '<>' ? '!=' : op, left, right: unary(), at };
    }
    if (acceptWord('IS')) {
      const negated = acceptWord('NOT');
      word('NULL');
      return { type: 'isNull', not: negated, value: left };
    }
    if (isWord('LIKE') || (isWord('NOT') && isWord('LIKE', 1))) throw unsupported('LIKE');
    const negated = isWord('NOT') && (isWord('BETWEEN', 1) || isWord('IN', 1)) ? (index++, true) : false;
    if (acceptWord('BETWEEN')) {
      const low = unary();
      word('AND');
      return { type: 'between', not: negated, value: left, low, high: unary(), at };
    }
    if (acceptWord('IN')) {
      punct('(');
      if (isWord('SELECT')) throw unsupported('IN (SELECT …) subqueries');
      const list = [expr()];
      while (acceptPunct(',')) list.push(expr());
      punct(')');
      return { type: 'in', not: negated, value: left, list, at };
    }
    if (negated) fail('BETWEEN or IN');
    return left;
  }
  function unary(): Expr {
    const token = peek();
    if (acceptPunct('-')) return { type: 'negate', value: primary(), at: position(token) };
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
      return { type: 'param', name: token.value, at: position(token) };
    }
    if (isPunct('(')) {
      if (isWord('SELECT', 1) || isWord('WITH', 1)) throw unsupported('subqueries in expressions');
      index++;
      const inner = expr();
      punct(')');
      return inner;
    }
    if (token.kind === 'ident') {
      const upper = token.value.toUpperCase();
      if (upper === 'NULL') return (index++, { type: 'literal', value: null, sqlType: null });
      if (upper === 'TRUE' || upper === 'FALSE') return (index++, { type: 'literal', value: upper === 'TRUE', sqlType: 'BOOL' });
      if (upper === 'CASE') throw unsupported('CASE expressions');
      if (upper === 'EXISTS') throw unsupported('EXISTS subqueries');
      if (['DATE', 'DATETIME', 'TIMESTAMP', 'NUMERIC', 'BIGNUMERIC'].includes(upper) && peek(1).kind === 'string') {
        index += 2;
        const cell = cellOf(upper as FieldType, peek(-1).value);
        if (cell !== null && typeof cell === 'object' && 'error' in cell)
          throw invalidQuery(`Invalid ${upper} literal: ${peek(-1).value} at ${position(token)}`);
        return { type: 'literal', value: cell as Cell, sqlType: upper as FieldType };
      }
      if (peek(1).kind === 'punct' && peek(1).value === '(') {
        if (AGGREGATES.has(upper)) throw unsupported(`aggregate functions (${upper})`);
        if (upper === 'CAST' || upper === 'SAFE_CAST') throw unsupported(upper);
        index += 2;
        const args: Expr[] = [];
        if (!isPunct(')')) {
          args.push(expr());
          while (acceptPunct(',')) args.push(expr());
        }
        punct(')');
        return { type: 'call', name: upper, args, at: position(token) };
      }
    }
    if (token.kind === 'ident' || token.kind === 'quoted') {
      const first = name();
      if (acceptPunct('.')) return { type: 'column', table: first, name: name(), at: position(token) };
      return { type: 'column', table: null, name: first, at: position(token) };
    }
    return fail('expression');
  }

  function select(): SelectStatement {
    word('SELECT');
    if (isWord('DISTINCT')) throw unsupported('SELECT DISTINCT');
    const items: SelectItem[] = [];
    do {
      const token = peek();
      if (acceptPunct('*')) items.push({ star: true, table: null, at: position(token) });
      else if ((token.kind === 'ident' || token.kind === 'quoted') && peek(1).value === '.' && peek(2).value === '*') {
        const table = name();
        index += 2;
        items.push({ star: true, table, at: position(token) });
      } else {
        const value = expr();
        items.push({ star: false, expr: value, alias: optionalAlias() });
      }
      if (items[items.length - 1]!.star && (isWord('EXCEPT') || isWord('REPLACE'))) throw unsupported('SELECT * EXCEPT or REPLACE');
    } while (acceptPunct(','));
    word('FROM');
    const from = fromItem();
    if (isPunct(',') || JOINS.some((keyword) => isWord(keyword))) throw unsupported('JOINs');
    let where: SelectStatement['where'] = null;
    if (acceptWord('WHERE')) {
      const at = position(peek());
      where = { expr: expr(), at };
    }
    if (isWord('GROUP')) throw unsupported('GROUP BY');
    if (isWord('HAVING')) throw unsupported('HAVING');
    if (isWord('QUALIFY') || isWord('WINDOW')) throw unsupported('window functions');
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
    if (isWord('OFFSET')) throw unsupported('LIMIT … OFFSET');
    if (['UNION', 'INTERSECT', 'EXCEPT'].some((keyword) => isWord(keyword))) throw unsupported('UNION, INTERSECT or EXCEPT');
    return { kind: 'SELECT', items, from, where, orderBy, limit };
  }

  /** A table, or `(SELECT …) [AS] alias`. */
  function fromItem(): FromItem {
    if (acceptPunct('(')) {
      if (isWord('WITH')) throw unsupported('WITH clauses');
      if (!isWord('SELECT')) fail('keyword SELECT');
      const query = select();
      punct(')');
      return { kind: 'subquery', query, alias: optionalAlias() ?? '$subquery' };
    }
    if (isWord('UNNEST')) throw unsupported('UNNEST');
    return { kind: 'table', ...tableRef(true) };
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

  function merge(): MergeStatement {
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
  } else if (isWord('WITH')) {
    throw unsupported('WITH clauses');
  } else {
    throw invalidQuery(`The sandbox's BigQuery runs only ${SUBSET}; got "${sql.trim().slice(0, 60)}"`);
  }
  acceptPunct(';');
  if (peek().kind !== 'end') fail('end of input');
  return statement;
}

type Parameter = { value: Cell; sqlType: FieldType };

/** One named query parameter's value as a cell. */
function parameterCell(parameter: Json): Parameter {
  const type = String((parameter.parameterType as Json | undefined)?.type ?? 'STRING').toUpperCase();
  const sqlType = standardType(type);
  if (!sqlType) throw invalidQuery(`Query parameter '${String(parameter.name)}': the sandbox does not support parameters of type ${type}`);
  const raw = (parameter.parameterValue as Json | undefined)?.value;
  const cell = cellOf(sqlType, raw);
  if (cell !== null && typeof cell === 'object' && 'error' in cell)
    throw invalidQuery(`Query parameter '${String(parameter.name)}': ${cell.error}`);
  return { value: cell as Cell, sqlType };
}

/** The tables (or subqueries) a statement reads, by alias, with the row being looked at (null while it is only checked). */
type Tables = Map<string, { fields: Field[]; row: Row | null }>;

interface Scope {
  tables: Tables;
  params: Map<string, Parameter>;
}

const kindOf = (cell: Cell) =>
  cell === null
    ? 'NULL'
    : typeof cell === 'number' || cell instanceof Numeric
      ? 'number'
      : cell instanceof Timestamp
        ? 'timestamp'
        : typeof cell;

/** A string compared with a TIMESTAMP, as BigQuery casts it (a text it cannot read is an error). */
function timestampText(text: string): number {
  const parsed = timestampOf(text);
  if (!parsed) throw invalidQuery(`Could not cast literal "${text}" to type TIMESTAMP`);
  return parsed.micros;
}

/** -1, 0, 1, or null when either side is NULL; BigQuery refuses comparing unlike types. */
function compareCells(left: Cell, right: Cell): number | null {
  if (left === null || right === null) return null;
  let a: string | number | boolean = left instanceof Numeric ? Number(left.text) : left instanceof Timestamp ? left.micros : left;
  let b: string | number | boolean = right instanceof Numeric ? Number(right.text) : right instanceof Timestamp ? right.micros : right;
  if (left instanceof Timestamp && typeof right === 'string') b = timestampText(right);
  if (right instanceof Timestamp && typeof left === 'string') a = timestampText(left);
  if (typeof a !== typeof b) throw invalidQuery(`No matching signature for operator for argument types: ${kindOf(left)}, ${kindOf(right)}`);
  return a < b ? -1 : a > b ? 1 : 0;
}

function evaluate(expression: Expr, scope: Scope): Cell {
  switch (expression.type) {
    case 'literal':
      return expression.value;
    case 'param': {
      const parameter = scope.params.get(expression.name);
      if (!parameter) throw invalidQuery(`Query parameter '${expression.name}' not found at ${expression.at}`);
      return parameter.value;
    }
    case 'column':
      return lookupColumn(expression, scope.tables).value;
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
      throw invalidQuery(`Function not found: ${expression.name} at ${expression.at} (${KNOWN_FUNCTIONS})`);
    }
    case 'compare': {
      const order = compareCells(evaluate(expression.left, scope), evaluate(expression.right, scope));
      if (order === null) return null;
      return compared(expression.op, order);
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

/** Whether `op` holds of an ordering (-1, 0, 1). */
function compared(op: string, order: number): boolean {
  switch (op) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    default:
      return order >= 0;
  }
}

function truth(cell: Cell): boolean | null {
  if (cell === null || typeof cell === 'boolean') return cell;
  throw invalidQuery(`Expected a BOOL expression, got ${kindOf(cell)}`);
}

const KNOWN_FUNCTIONS = "the sandbox's BigQuery knows IFNULL, COALESCE, CURRENT_TIMESTAMP() and CURRENT_DATE()";

/** The field of `fields` named `name` (a loop, not a closure: this runs for every row a query reads). */
function fieldNamed(fields: Field[], name: string): Field | undefined {
  for (const field of fields) if (field.name === name) return field;
  return undefined;
}

/** " at [line:column]" for a message, when the place is known. */
const placed = (at: string | undefined) => (at ? ` at ${at}` : '');

/** The table (by alias) and field a column names; BigQuery's messages when there is none, or more than one. */
function lookupColumn(
  column: { table: string | null; name: string; at?: string },
  tables: Tables,
): { alias: string; field: Field; value: Cell } {
  if (column.table !== null) {
    const entry = tables.get(column.table);
    if (!entry) throw invalidQuery(`Unrecognized name: ${column.table}${placed(column.at)}`);
    const field = fieldNamed(entry.fields, column.name);
    if (!field) throw invalidQuery(`Name ${column.name} not found inside ${column.table}${placed(column.at)}`);
    return { alias: column.table, field, value: entry.row ? (entry.row[field.name] ?? null) : null };
  }
  let found: { alias: string; field: Field; value: Cell } | null = null;
  for (const [alias, entry] of tables) {
    const field = fieldNamed(entry.fields, column.name);
    if (!field) continue;
    if (found) throw invalidQuery(`Column name ${column.name} is ambiguous${placed(column.at)}`);
    found = { alias, field, value: entry.row ? (entry.row[field.name] ?? null) : null };
  }
  if (!found) throw invalidQuery(`Unrecognized name: ${column.name}${placed(column.at)}`);
  return found;
}

/** Every column reference in an expression. */
function columnsOf(expr: Expr, into: ColumnExpr[] = []): ColumnExpr[] {
  switch (expr.type) {
    case 'column':
      into.push(expr);
      break;
    case 'call':
      expr.args.forEach((arg) => columnsOf(arg, into));
      break;
    case 'compare':
    case 'and':
    case 'or':
      columnsOf(expr.left, into);
      columnsOf(expr.right, into);
      break;
    case 'between':
      [expr.value, expr.low, expr.high].forEach((part) => columnsOf(part, into));
      break;
    case 'in':
      [expr.value, ...expr.list].forEach((part) => columnsOf(part, into));
      break;
    case 'isNull':
    case 'not':
    case 'negate':
      columnsOf(expr.value, into);
      break;
    default:
      break;
  }
  return into;
}

/** An expression's type before it runs (null for a bare NULL); literals and parameters BigQuery may coerce. */
interface Typed {
  type: FieldType | null;
  coercible: boolean;
}

const NUMBER_TYPES = new Set<FieldType>(['INT64', 'FLOAT64', 'NUMERIC', 'BIGNUMERIC']);

/**
 * Whether BigQuery compares the two: like types, numbers with numbers, a STRING literal or parameter
 * with a DATE or TIMESTAMP (it is cast). The coercions the sandbox does not make (DATE with DATETIME, a
 * string with a DATETIME) are refused in words.
 */
function comparable(left: Typed, right: Typed, at: string): boolean {
  if (!left.type || !right.type || left.type === right.type) return true;
  if (NUMBER_TYPES.has(left.type) && NUMBER_TYPES.has(right.type)) return true;
  const [time, other] = left.type === 'STRING' ? [right, left] : [left, right];
  if (other.type === 'STRING' && other.coercible && (time.type === 'DATE' || time.type === 'TIMESTAMP')) return true;
  const pair = [left.type, right.type];
  if (pair.includes('DATETIME') && (pair.includes('DATE') || (pair.includes('STRING') && other.coercible))) {
    throw invalidQuery(
      `The sandbox's BigQuery compares a DATETIME only with a DATETIME (BigQuery would coerce ${pair.join(' and ')}) at ${at}`,
    );
  }
  return false;
}

/** Checks an operator's operands against its first one: BigQuery's "No matching signature" otherwise. */
function checkOperands(operator: string, operands: Typed[], at: string) {
  const [first, ...rest] = operands;
  if (rest.every((other) => comparable(first!, other, at))) return;
  const types = operands.map((operand) => operand.type ?? 'INT64').join(', ');
  const supported = operands.length === 2 ? `. Supported signature: ANY ${operator} ANY` : '';
  throw invalidQuery(`No matching signature for operator ${operator} for argument types: ${types}${supported} at ${at}`);
}

/** A BOOL operand of NOT, AND, OR. */
function checkBool(operator: string, operand: Typed) {
  if (operand.type && operand.type !== 'BOOL')
    throw invalidQuery(`No matching signature for operator ${operator} for argument types: ${operand.type}`);
}

/** The type of an expression over `scope`'s columns and parameters; a name, function or operand BigQuery would refuse throws. */
function typeOf(expr: Expr, scope: Scope): Typed {
  const bool: Typed = { type: 'BOOL', coercible: false };
  switch (expr.type) {
    case 'literal':
      return { type: expr.sqlType, coercible: true };
    case 'param': {
      const parameter = scope.params.get(expr.name);
      if (!parameter) throw invalidQuery(`Query parameter '${expr.name}' not found at ${expr.at}`);
      return { type: parameter.sqlType, coercible: true };
    }
    case 'column':
      return { type: standardType(lookupColumn(expr, scope.tables).field.type), coercible: false };
    case 'negate': {
      const inner = typeOf(expr.value, scope);
      if (inner.type && !NUMBER_TYPES.has(inner.type))
        throw invalidQuery(`No matching signature for operator - for argument types: ${inner.type} at ${expr.at}`);
      return inner;
    }
    case 'call':
      return callType(expr, scope);
    case 'compare':
      checkOperands(expr.op, [typeOf(expr.left, scope), typeOf(expr.right, scope)], expr.at);
      return bool;
    case 'between':
      checkOperands(
        'BETWEEN',
        [expr.value, expr.low, expr.high].map((part) => typeOf(part, scope)),
        expr.at,
      );
      return bool;
    case 'in':
      checkOperands(
        'IN',
        [expr.value, ...expr.list].map((part) => typeOf(part, scope)),
        expr.at,
      );
      return bool;
    case 'isNull':
      typeOf(expr.value, scope);
      return bool;
    case 'not':
      checkBool('NOT', typeOf(expr.value, scope));
      return bool;
    case 'and':
    case 'or':
      checkBool(expr.type.toUpperCase(), typeOf(expr.left, scope));
      checkBool(expr.type.toUpperCase(), typeOf(expr.right, scope));
      return bool;
  }
}

/** The type of a call of a function the sandbox knows. */
function callType(expr: Extract<Expr, { type: 'call' }>, scope: Scope): Typed {
  const args = expr.args.map((arg) => typeOf(arg, scope));
  const arity = (count: number) => {
    if (args.length !== count) throw invalidQuery(`Number of arguments does not match for function ${expr.name} at ${expr.at}`);
  };
  switch (expr.name) {
    case 'IFNULL':
    case 'COALESCE': {
      if (expr.name === 'IFNULL') arity(2);
      if (args.length === 0) throw invalidQuery(`Number of arguments does not match for function COALESCE at ${expr.at}`);
      checkOperands(expr.name, args, expr.at);
      return { type: args.find((arg) => arg.type !== null)?.type ?? null, coercible: args.every((arg) => arg.coercible) };
    }
    case 'CURRENT_TIMESTAMP':
      arity(0);
      return { type: 'TIMESTAMP', coercible: false };
    case 'CURRENT_DATE':
      arity(0);
      return { type: 'DATE', coercible: false };
    default:
      throw invalidQuery(`Function not found: ${expr.name} at ${expr.at} (${KNOWN_FUNCTIONS})`);
  }
}

/** A WHERE, ON or WHEN condition: BOOL (or NULL). */
function checkCondition(expr: Expr, scope: Scope, clause: string, at = '') {
  const typed = typeOf(expr, scope);
  if (typed.type && typed.type !== 'BOOL')
    throw invalidQuery(`${clause} should return type BOOL, but returns ${typed.type}${at ? ` at ${at}` : ''}`);
}

const LEGACY_TYPES: Partial<Record<FieldType, string>> = { INT64: 'INTEGER', FLOAT64: 'FLOAT', BOOL: 'BOOLEAN' };

/** A result column as BigQuery's result schemas give it: INTEGER, FLOAT and BOOLEAN by their legacy names. */
const resultField = (name: string, type: FieldType, mode: Field['mode'] = 'NULLABLE'): Field => ({
  name,
  type: LEGACY_TYPES[type] ?? type,
  mode,
});

/** A table and the columns of it a statement reads: what the statement processes (and is billed for). */
interface Scan {
  table: Table;
  columns: Set<string>;
}

/** How a statement finds its tables and parameters. */
interface Context {
  params: Map<string, Parameter>;
  resolve(ref: TableRef): Table;
}

/** A SELECT checked against what it reads: its result columns, the columns it reads, and its run. */
interface SelectPlan {
  fields: Field[];
  /** The tables and columns read to give the result columns named in `needed` (null: every one). */
  scans(needed: Set<string> | null): Scan[];
  rows(): Row[];
}

/** What a SELECT reads from: a table, or a subquery's result. */
function sourceOf(from: FromItem, context: Context): Pick<SelectPlan, 'fields' | 'rows'> & { scans(columns: Set<string>): Scan[] } {
  if (from.kind === 'table') {
    const table = context.resolve(from);
    return { fields: table.fields, scans: (columns) => [{ table, columns }], rows: () => table.rows };
  }
  const inner = planSelect(from.query, context);
  return { fields: inner.fields, scans: (columns) => inner.scans(columns), rows: () => inner.rows() };
}

/** A cell as a plain value that orders as BigQuery orders it (a column's cells are all of one type). */
function sortKey(cell: Cell): string | number | boolean | null {
  if (cell instanceof Timestamp) return cell.micros;
  if (cell instanceof Numeric) return Number(cell.text);
  return cell;
}

/** Checks a SELECT (names, functions, operand types) before anything runs, and plans its run. */
function planSelect(statement: SelectStatement, context: Context): SelectPlan {
  const source = sourceOf(statement.from, context);
  const alias = statement.from.alias;
  const entry: { fields: Field[]; row: Row | null } = { fields: source.fields, row: null };
  const scope: Scope = { tables: new Map([[alias, entry]]), params: context.params };
  const fields: Field[] = [];
  // Each result column: a source column as is, or an expression; and the source columns it reads.
  const outputs: Array<{ column: string | null; expr: Expr | null; uses: string[] }> = [];
  let anonymous = 0;
  for (const item of statement.items) {
    if (item.star) {
      if (item.table !== null && item.table !== alias) throw invalidQuery(`Unrecognized name: ${item.table} at ${item.at}`);
      for (const field of source.fields) {
        fields.push(resultField(field.name, standardType(field.type) ?? 'STRING', field.mode ?? 'NULLABLE'));
        outputs.push({ column: field.name, expr: null, uses: [field.name] });
      }
      continue;
    }
    const typed = typeOf(item.expr, scope);
    const name = item.alias ?? (item.expr.type === 'column' ? item.expr.name : `f${anonymous++}_`);
    fields.push(resultField(name, typed.type ?? 'INT64'));
    outputs.push({ column: null, expr: item.expr, uses: columnsOf(item.expr).map((column) => column.name) });
  }
  if (statement.where) checkCondition(statement.where.expr, scope, 'WHERE clause', statement.where.at);
  // ORDER BY names a result column (by its name or alias) or any expression of the source.
  const order = statement.orderBy.map(({ expr, desc }) => {
    const output = expr.type === 'column' && expr.table === null ? fields.findIndex((field) => field.name === expr.name) : -1;
    if (output < 0) typeOf(expr, scope);
    return { output, expr, desc };
  });

  const valueOf = (index: number, row: Row): Cell => {
    const output = outputs[index]!;
    if (output.column !== null) return row[output.column] ?? null;
    entry.row = row;
    return evaluate(output.expr!, scope);
  };
  const identity =
    outputs.length === source.fields.length && outputs.every((output, index) => output.column === source.fields[index]!.name);

  return {
    fields,
    scans(needed) {
      const used = new Set<string>();
      const read = (expr: Expr) => columnsOf(expr).forEach((column) => used.add(column.name));
      if (statement.where) read(statement.where.expr);
      order.forEach(({ output, expr }) => (output >= 0 ? outputs[output]!.uses.forEach((name) => used.add(name)) : read(expr)));
      outputs.forEach((output, index) => {
        if (!needed || needed.has(fields[index]!.name)) output.uses.forEach((name) => used.add(name));
      });
      return source.scans(used);
    },
    rows() {
      const where = statement.where?.expr;
      const input = source.rows();
      let rows = where
        ? input.filter((row) => {
            entry.row = row;
            return truth(evaluate(where, scope)) === true;
          })
        : input.slice();
      if (order.length > 0) {
        const keyed = rows.map((row) => ({
          row,
          key: order.map(({ output, expr }) => {
            if (output >= 0) return sortKey(valueOf(output, row));
            entry.row = row;
            return sortKey(evaluate(expr, scope));
          }),
        }));
        const directions = order.map(({ desc }) => (desc ? -1 : 1));
        keyed.sort((a, b) => {
          for (let index = 0; index < directions.length; index++) {
            const left = a.key[index]!;
            const right = b.key[index]!;
            // NULLs first ascending, last descending, as BigQuery orders them.
            const compared = left === right ? 0 : left === null ? -1 : right === null ? 1 : left < right ? -1 : left > right ? 1 : 0;
            if (compared !== 0) return compared * directions[index]!;
          }
          return 0;
        });
        rows = keyed.map(({ row }) => row);
      }
      if (statement.limit !== null) rows = rows.slice(0, statement.limit);
      // Rows are never changed in place, so SELECT * hands on the source's row objects.
      if (identity) return rows;
      return rows.map((row) => {
        const projected: Row = {};
        fields.forEach((field, index) => {
          projected[field.name] = valueOf(index, row);
        });
        return projected;
      });
    },
  };
}

/** A statement checked and ready: its type, its result columns (a SELECT), what it reads, and its run. */
interface Prepared {
  statementType: string;
  fields?: Field[];
  scans: Scan[];
  run(): QueryOutcome;
}

/** Checks a MERGE (tables, aliases, names, types, write access) and plans its run. */
function planMerge(statement: MergeStatement, context: Context, warehouse: Warehouse): Prepared {
  const target = context.resolve(statement.target);
  const source = context.resolve(statement.source);
  if (statement.target.alias === statement.source.alias) throw invalidQuery(`Duplicate alias ${statement.target.alias}`);
  warehouse.writable(warehouse.dataset(target.projectId, target.datasetId), 'bigquery.tables.updateData');
  const scope: Scope = {
    tables: new Map([
      [statement.target.alias, { fields: target.fields, row: null }],
      [statement.source.alias, { fields: source.fields, row: null }],
    ]),
    params: context.params,
  };
  const targetField = (column: string) => {
    if (!target.fields.some((field) => field.name === column))
      throw invalidQuery(`Name ${column} not found inside ${statement.target.alias}`);
  };
  const read: Expr[] = [statement.on];
  checkCondition(statement.on, scope, 'ON clause');
  for (const clause of statement.clauses) {
    if (clause.condition) {
      checkCondition(clause.condition, scope, 'WHEN clause');
      read.push(clause.condition);
    }
    const action = clause.action;
    if (action.type === 'update') {
      for (const { column, expr } of action.set) {
        targetField(column);
        typeOf(expr, scope);
        read.push(expr);
      }
    } else if (action.type === 'insert') {
      const columns = action.columns ?? target.fields.map((field) => field.name);
      columns.forEach(targetField);
      if (columns.length !== action.values.length) throw invalidQuery('Inserted row has wrong column count');
      action.values.forEach((value) => typeOf(value, scope));
      read.push(...action.values);
    } else if (action.type === 'insertRow' && source.fields.length !== target.fields.length) {
      throw invalidQuery(
        `INSERT ROW needs the source (${source.fields.length} columns) and target (${target.fields.length} columns) to have the same number of columns`,
      );
    }
  }
  // BigQuery bills a MERGE the columns it reads of the source, and the whole target when it updates or deletes rows.
  const referenced = read.flatMap((expr) => columnsOf(expr)).map((column) => lookupColumn(column, scope.tables));
  const columnsIn = (alias: string) =>
    new Set(referenced.filter((reference) => reference.alias === alias).map((reference) => reference.field.name));
  const every = (table: Table) => new Set(table.fields.map((field) => field.name));
  const rewrites = statement.clauses.some((clause) => clause.action.type === 'update' || clause.action.type === 'delete');
  const insertsRows = statement.clauses.some((clause) => clause.action.type === 'insertRow');
  return {
    statementType: 'MERGE',
    scans: [
      { table: target, columns: rewrites ? every(target) : columnsIn(statement.target.alias) },
      { table: source, columns: insertsRows ? every(source) : columnsIn(statement.source.alias) },
    ],
    run: () => runMerge(statement, target, source, context.params),
  };
}

/** Checks a DROP TABLE (the table, unless IF EXISTS; write access) and plans it. */
function planDrop(statement: Extract<Statement, { kind: 'DROP_TABLE' }>, context: Context, warehouse: Warehouse): Prepared {
  let found: Table | null = null;
  try {
    found = context.resolve(statement.table);
  } catch (error) {
    if (!statement.ifExists || !(error instanceof BigQueryError) || error.code !== 404) throw error;
  }
  const owner = found ? warehouse.dataset(found.projectId, found.datasetId) : null;
  if (owner) warehouse.writable(owner, 'bigquery.tables.delete');
  return {
    statementType: 'DROP_TABLE',
    scans: [],
    run: () => {
      if (owner && found) owner.tables.delete(found.tableId);
      return { statementType: 'DROP_TABLE' };
    },
  };
}

interface QueryOutcome {
  statementType: string;
  result?: { fields: Field[]; rows: Row[] };
  dml?: { inserted: number; updated: number; deleted: number };
  /** An error of the running job (the statement parsed, but failed). */
  runtimeError?: string;
}

/** Parses and checks one statement of the subset against the warehouse; parse and reference errors throw. Nothing runs yet. */
function prepareQuery(warehouse: Warehouse, projectId: string, config: Json): Prepared {
  if (config.useLegacySql === true) throw invalidQuery('The sandbox runs GoogleSQL only: set useLegacySql to false');
  const sql = String(config.query ?? '');
  if (!sql.trim()) throw invalid('Required parameter is missing: query');
  warehouse.queries.push(sql);
  const statement = parse(sql);
  const params = new Map<string, Parameter>();
  for (const parameter of (config.queryParameters as Json[] | undefined) ?? []) {
    if (typeof parameter.name !== 'string') throw invalidQuery('The sandbox supports named query parameters only (parameterMode NAMED)');
    params.set(parameter.name, parameterCell(parameter));
  }
  const defaultDataset = config.defaultDataset as { projectId?: string; datasetId?: string } | undefined;
  const context: Context = {
    params,
    resolve(ref) {
      const path = ref.path;
      if (path.length === 3) return warehouse.table(path[0]!, path[1]!, path[2]!);
      if (path.length === 2) return warehouse.table(projectId, path[0]!, path[1]!);
      if (path.length === 1 && defaultDataset?.datasetId)
        return warehouse.table(defaultDataset.projectId ?? projectId, defaultDataset.datasetId, path[0]!);
      throw invalidQuery(`Table "${path.join('.')}" must be qualified with a dataset (e.g. dataset.table).`);
    },
  };
  if (statement.kind === 'DROP_TABLE') return planDrop(statement, context, warehouse);
  if (statement.kind === 'MERGE') return planMerge(statement, context, warehouse);
  const plan = planSelect(statement, context);
  return {
    statementType: 'SELECT',
    fields: plan.fields,
    scans: plan.scans(null),
    run: () => ({ statementType: 'SELECT', result: { fields: plan.fields, rows: plan.rows() } }),
  };
}

/** Bytes a statement processes: each column it reads, over every row of its table. */
const scannedBytes = (scans: Scan[]) =>
  scans.reduce(
    (total, scan) =>
      total +
      scan.table.fields
        .filter((field) => scan.columns.has(field.name))
        .reduce((sum, field) => sum + tableColumnBytes(scan.table, field), 0),
    0,
  );

const MB = 1024 * 1024;

/** On-demand billing: the bytes processed rounded up to a whole MB, at least 10 MB a query (nothing when nothing is read). */
const billedBytes = (processed: number) => (processed === 0 ? 0 : Math.max(10 * MB, Math.ceil(processed / MB) * MB));

/** configuration.query.maximumBytesBilled as a number, or null when unset. */
function maximumBytesBilledOf(config: Json): number | null {
  const raw = config.maximumBytesBilled;
  if (raw === undefined || raw === null || raw === '') return null;
  const limit = Number(raw);
  if (!Number.isSafeInteger(limit) || limit < 0) throw invalid(`Invalid value for maximumBytesBilled: ${String(raw)}`);
  return limit;
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
      if (typeof cell === 'string') return cell;
      throw mismatch();
    case 'DATETIME':
      if (typeof cell === 'string' && datetimeText(cell)) return datetimeText(cell);
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

/** Runs a checked MERGE: the target's rows are replaced at once, or not at all when a row fails. */
function runMerge(statement: MergeStatement, target: Table, source: Table, params: Map<string, Parameter>): QueryOutcome {
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
  const candidatesOf = equalityIndex(statement.on, statement.target.alias, statement.source.alias, source.rows, (targetRow, sourceRow) =>
    scope(targetRow, sourceRow),
  );
  try {
    for (const row of target.rows) {
      const matches = candidatesOf(row).filter((index) => truth(evaluate(statement.on, scope(row, source.rows[index]!))) === true);
      if (matches.length > 0) {
        matches.forEach((index) => matchedSources.add(index));
        const clause = statement.clauses.find(
          (candidate) => candidate.when === 'matched' && holds(candidate.condition, scope(row, source.rows[matches[0]!]!)),
        );
        if (!clause) {
          kept.push(row);
          continue;
        }
        if (matches.length > 1)
          return { statementType: 'MERGE', runtimeError: 'UPDATE/MERGE must match at most one source row for each target row' };
        const context = scope(row, source.rows[matches[0]!]!);
        if (clause.action.type === 'delete') stats.deleted += 1;
        else if (clause.action.type === 'update') {
          kept.push(update(row, clause.action.set, context));
          stats.updated += 1;
        }
        continue;
      }
      const clause = statement.clauses.find(
        (candidate) => candidate.when === 'notMatchedBySource' && holds(candidate.condition, scope(row, null)),
      );
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
          throw invalidQuery(
            `INSERT ROW needs the source (${source.fields.length} columns) and target (${target.fields.length} columns) to have the same number of columns`,
          );
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
      for (const field of target.fields)
        if (field.mode === 'REQUIRED' && inserted[field.name] === null) throw invalidQuery(`Required field ${field.name} cannot be NULL`);
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
const wireRows = (rows: Row[], fields: Field[], int64Timestamps: boolean) =>
  rows.map((row) => ({ f: fields.map((field) => ({ v: wireOf(row[field.name] ?? null, int64Timestamps) })) }));

/** A page of rows: `pageToken` is the next offset, `startIndex` a starting row. */
function pageOf<T>(rows: T[], url: URL, bodyMax?: unknown): { page: T[]; pageToken?: string } {
  const max = Number(url.searchParams.get('maxResults') ?? bodyMax ?? 100_000);
  const start = Number(url.searchParams.get('pageToken') ?? url.searchParams.get('startIndex') ?? 0);
  const size = Number.isFinite(max) && max >= 0 ? Math.min(max, 100_000) : 100_000;
  const page = rows.slice(start, start + size);
  return { page, ...(start + size < rows.length ? { pageToken: String(start + size) } : {}) };
}

const int64TimestampsOf = (url: URL, body?: Json) =>
  url.searchParams.get('formatOptions.useInt64Timestamp') === 'true' ||
  (body?.formatOptions as Json | undefined)?.useInt64Timestamp === true;

/** A failed job's error as the API answers jobs.query and getQueryResults of it: 400 with the job's reason. */
const jobError = (job: Job) => {
  const error = job.errors![0]!;
  return new BigQueryError(400, error.reason, error.message, error.location);
};

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
    totalBytesProcessed: String(job.statistics.totalBytesProcessed ?? '0'),
    ...(result
      ? {
          schema: { fields: result.fields },
          totalRows: String(rows.length),
          rows: wireRows(page, result.fields, int64TimestampsOf(url, body)),
        }
      : { totalRows: '0' }),
    ...(pageToken ? { pageToken } : {}),
    ...(job.dml
      ? {
          numDmlAffectedRows: String(job.dml.inserted + job.dml.updated + job.dml.deleted),
          dmlStats: {
            insertedRowCount: String(job.dml.inserted),
            updatedRowCount: String(job.dml.updated),
            deletedRowCount: String(job.dml.deleted),
          },
        }
      : {}),
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
          message:
            'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
          errors: [
            { message: 'Invalid Credentials', domain: 'global', reason: 'authError', location: 'Authorization', locationType: 'header' },
          ],
          status: 'UNAUTHENTICATED',
        },
      },
      { 'WWW-Authenticate': 'Bearer realm="https://accounts.google.com/"' },
    );

  function newJob(projectId: string, body: Json): Job {
    const reference = (body.jobReference as { jobId?: string; location?: string; projectId?: string } | undefined) ?? {};
    const jobId = reference.jobId ?? `job_${randomUUID().replace(/-/g, '_')}`;
    if (!/^[\w-]{1,1024}$/.test(jobId)) throw invalid(`Invalid job ID "${jobId}".`);
    if (warehouse.jobs.has(`${projectId}/${jobId}`))
      throw new BigQueryError(409, 'duplicate', `Already Exists: Job ${projectId}:${LOCATION}.${jobId}`);
    return {
      projectId,
      jobId,
      location: reference.location ?? LOCATION,
      configuration: (body.configuration as Json) ?? {},
      creationTime: Date.now(),
      errors: null,
      statistics: {},
    };
  }

  /**
   * Runs a query job: checked first (a parse, name or type error throws), then refused when it would
   * bill more than configuration.query.maximumBytesBilled, else run. A dry run stops after the check,
   * with the bytes the run would process and its result schema, and is not kept.
   */
  function runQueryJob(job: Job, config: Json, dryRun: boolean) {
    job.configuration = { ...job.configuration, jobType: 'QUERY', query: config, ...(dryRun ? { dryRun: true } : {}) };
    const prepared = prepareQuery(warehouse, job.projectId, config);
    const limit = maximumBytesBilledOf(config);
    const processed = scannedBytes(prepared.scans);
    const needed = billedBytes(processed);
    job.statementType = prepared.statementType;
    let billed = 0;
    if (!dryRun && limit !== null && needed > limit) {
      job.errors = [
        { reason: 'bytesBilledLimitExceeded', message: `Query exceeded limit for bytes billed: ${limit}. ${needed} or higher required.` },
      ];
    } else if (!dryRun) {
      const outcome = prepared.run();
      job.result = outcome.result;
      job.dml = outcome.dml;
      if (outcome.runtimeError) job.errors = [{ reason: 'invalidQuery', message: outcome.runtimeError, location: 'query' }];
      else billed = needed;
    }
    const referencedTables = [...new Set(prepared.scans.map((scan) => scan.table))].map(({ projectId, datasetId, tableId }) => ({
      projectId,
      datasetId,
      tableId,
    }));
    const dml = job.dml;
    job.statistics = {
      totalBytesProcessed: String(processed),
      query: {
        statementType: prepared.statementType,
        totalBytesProcessed: String(processed),
        totalBytesBilled: String(billed),
        cacheHit: false,
        ...(referencedTables.length > 0 ? { referencedTables } : {}),
        ...(dryRun ? { totalBytesProcessedAccuracy: 'PRECISE', ...(prepared.fields ? { schema: { fields: prepared.fields } } : {}) } : {}),
        ...(dml
          ? {
              numDmlAffectedRows: String(dml.inserted + dml.updated + dml.deleted),
              dmlStats: {
                insertedRowCount: String(dml.inserted),
                updatedRowCount: String(dml.updated),
                deletedRowCount: String(dml.deleted),
              },
            }
          : {}),
      },
    };
    warehouse.log.push({
      jobId: job.jobId,
      sql: String(config.query),
      dryRun,
      statementType: prepared.statementType,
      maximumBytesBilled: limit,
      totalBytesProcessed: processed,
      totalBytesBilled: billed,
      error: job.errors ? { reason: job.errors[0]!.reason, message: job.errors[0]!.message } : null,
    });
    if (!dryRun) warehouse.jobs.set(`${job.projectId}/${job.jobId}`, job);
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
      if (!DATASET_ID.test(datasetId))
        throw invalid(
          `Invalid dataset ID "${datasetId}". Dataset IDs must be alphanumeric (plus underscores) and must be at most 1024 characters long.`,
        );
      if (reference.projectId && reference.projectId !== projectId)
        throw invalid(`Dataset project ${reference.projectId} does not match the request's project ${projectId}`);
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
        datasets: list.map((owner) => ({
          kind: 'bigquery#dataset',
          id: `${projectId}:${owner.datasetId}`,
          datasetReference: { projectId, datasetId: owner.datasetId },
          location: owner.location,
        })),
      });
    }
    if ((match = /^\/datasets\/([^/]+)$/.exec(rest)) && method === 'GET')
      return json(res, 200, datasetResource(store, warehouse.dataset(projectId, decodeURIComponent(match[1]!))));
    if ((match = /^\/datasets\/([^/]+)\/tables$/.exec(rest))) {
      const owner = warehouse.dataset(projectId, decodeURIComponent(match[1]!));
      if (method === 'GET') {
        const tables = warehouse
          .liveTables()
          .filter((candidate) => candidate.projectId === projectId && candidate.datasetId === owner.datasetId);
        return json(res, 200, {
          kind: 'bigquery#tableList',
          etag: 'sandbox',
          totalItems: tables.length,
          tables: tables.map((found) => ({
            kind: 'bigquery#table',
            id: `${projectId}:${owner.datasetId}.${found.tableId}`,
            tableReference: { projectId, datasetId: owner.datasetId, tableId: found.tableId },
            type: 'TABLE',
          })),
        });
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
        const dryRun = configuration.dryRun === true;
        runQueryJob(job, configuration.query as Json, dryRun);
        return json(res, 200, dryRun ? dryRunResource(job) : jobResource(store, job));
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
      const dryRun = body.dryRun === true;
      const { query, useLegacySql, parameterMode, queryParameters, defaultDataset, maximumBytesBilled } = body;
      runQueryJob(job, { query, useLegacySql, parameterMode, queryParameters, defaultDataset, maximumBytesBilled }, dryRun);
      if (job.errors) throw jobError(job);
      const statistics = job.statistics.query as Json;
      if (dryRun) {
        return json(res, 200, {
          kind: 'bigquery#queryResponse',
          jobReference: { projectId, location: job.location },
          jobComplete: true,
          cacheHit: false,
          totalBytesProcessed: statistics.totalBytesProcessed,
          ...(statistics.schema ? { schema: statistics.schema } : {}),
        });
      }
      return json(res, 200, {
        ...queryResponse(job, url, body),
        kind: 'bigquery#queryResponse',
        totalBytesBilled: statistics.totalBytesBilled,
      });
    }
    if ((match = /^\/queries\/([^/]+)$/.exec(rest)) && method === 'GET') {
      const job = warehouse.jobs.get(`${projectId}/${decodeURIComponent(match[1]!)}`);
      if (!job) throw notFound(`Job ${projectId}:${url.searchParams.get('location') ?? LOCATION}.${match[1]}`);
      if (job.errors) throw jobError(job);
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
    job.statistics = {
      load: {
        inputFiles: '1',
        inputFileBytes: String(Buffer.byteLength(data)),
        outputRows: String(outcome.outputRows),
        outputBytes: '0',
        badRecords: outcome.errors ? '1' : '0',
      },
    };
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
    jobs: () => warehouse.log.map((entry) => ({ ...entry })),
    createTable(projectId, datasetId, tableId, fields) {
      const owner = warehouse.ensureDataset(projectId, datasetId);
      if (owner.tables.has(tableId))
        throw new BigQueryError(409, 'duplicate', `Already Exists: Table ${projectId}:${datasetId}.${tableId}`);
      owner.tables.set(tableId, newTable(projectId, datasetId, tableId, { schema: { fields } }));
    },
    insertRows(projectId, datasetId, tableId, rows) {
      appendRows(warehouse.table(projectId, datasetId, tableId), rows);
    },
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
          .map(
            (row) => `<tr>${found.fields.map((field) => `<td>${escapeHtml(plainOf(row[field.name] ?? null) ?? '')}</td>`).join('')}</tr>`,
          )
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
        if ((match = API.exec(url.pathname)))
          return await api(req, res, url, match[1] === undefined ? undefined : decodeURIComponent(match[1]), match[2] ?? '');
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
function aliasesOf(expr: Expr): Set<string | null> {
  return new Set(columnsOf(expr).map((column) => column.table));
}

/**
 * A MERGE's candidate source rows for a target row: the ON condition's equalities between a target
 * expression and a source expression become a hash key (as BigQuery joins), so a MERGE costs the
 * rows it touches, not table × staged rows. Every candidate is still checked against the whole ON.
 * Without such equalities, every source row is a candidate.
 */
function equalityIndex(
  on: Expr,
  targetAlias: string,
  sourceAlias: string,
  sourceRows: Row[],
  scopeOf: (target: Row | null, source: Row | null) => Scope,
): (targetRow: Row) => number[] {
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
