/**
 * The sandbox BigQuery's storage: projects, datasets and tables in memory (the read-only dataset and
 * the demo source table seeded), table creation checked as tables.insert checks it, and load jobs
 * (NEWLINE_DELIMITED_JSON through the multipart upload) checked against the table's schema.
 */
import {
  BigQueryError,
  cellOf,
  columnBytes,
  invalid,
  notFound,
  standardType,
  type Field,
  type Json,
  type Row,
} from '@/sandbox/bigquery/values';

export const BIGQUERY_PROJECTS = [
  { id: 'acme-analytics', friendlyName: 'Acme Analytics' },
  { id: 'acme-warehouse', friendlyName: 'Acme Warehouse' },
] as const;

/** A dataset the sandbox login can read but not write (BigQuery Data Viewer on it). */
export const READ_ONLY_DATASET = { projectId: 'acme-analytics', datasetId: 'shared_reports' } as const;

export const LOCATION = 'US';

// ---------------------------------------------------------------------------------------------
// Storage

export interface Table {
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

export interface Dataset {
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

export interface Job {
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

export function createWarehouse() {
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
export function tableColumnBytes(found: Table, field: Field): number {
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
export function appendRows(target: Table, records: Array<Record<string, unknown>>) {
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

export type Warehouse = ReturnType<typeof createWarehouse>;
// ---------------------------------------------------------------------------------------------
// Schema checks

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,299}$/;
export const DATASET_ID = /^[A-Za-z0-9_]{1,1024}$/;
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

export function newTable(projectId: string, datasetId: string, tableId: string, body: Json): Table {
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
export function runLoad(warehouse: Warehouse, projectId: string, load: Json, data: string): { errors: Job['errors']; outputRows: number } {
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
export function multipartParts(body: Buffer, contentType: string): [string, string] {
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
