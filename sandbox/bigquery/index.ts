/**
 * The sandbox's BigQuery: the REST subset `@google-cloud/bigquery` 8 uses, under
 * `/bigquery/bigquery/v2/projects/{p}/…` (and the library's multipart upload path,
 * `/bigquery/upload/bigquery/v2/projects/{p}/jobs`). Projects list; datasets get/insert; tables
 * get/insert/delete (schema, timePartitioning, clustering, expirationTime); jobs insert/get,
 * jobs.query and getQueryResults; tabledata list. Load jobs take NEWLINE_DELIMITED_JSON, checked
 * against the schema (sandbox/bigquery/warehouse.ts). Query jobs run SELECTs (sandbox/bigquery/select.ts:
 * parsed by node-sql-parser, a small evaluator) and the MERGE statements SignalBridge sends
 * (sandbox/bigquery/merge.ts, recognised by their shape); any other statement is only dry-run (its
 * statement type) and refused as `invalidQuery` when run. Every call needs a Google access token with
 * the BigQuery scope.
 *
 * The sandbox login may write everywhere in its two projects except the dataset
 * `acme-analytics.shared_reports`, which is shared with it read-only (writes are refused with 403
 * accessDenied). Everything is kept in memory.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { planMerge } from '@/sandbox/bigquery/merge';
import { parseStatement, planSelect, unsupported, type Prepared, type Scan } from '@/sandbox/bigquery/select';
import {
  BigQueryError,
  errorBody,
  invalid,
  invalidQuery,
  notFound,
  parametersOf,
  plainOf,
  wireOf,
  type Field,
  type Json,
  type Row,
} from '@/sandbox/bigquery/values';
import {
  BIGQUERY_PROJECTS,
  createWarehouse,
  DATASET_ID,
  LOCATION,
  multipartParts,
  newTable,
  runLoad,
  appendRows,
  tableColumnBytes,
  type Dataset,
  type Job,
  type SandboxColumn,
  type SandboxQueryJob,
  type Table,
  type Warehouse,
} from '@/sandbox/bigquery/warehouse';
import { routeTable, type RouteHandler, type RouteParams } from '@/sandbox/routes';
import { escapeHtml, json } from '@/sandbox/server';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

export { standardType, type Field } from '@/sandbox/bigquery/values';
export {
  BIGQUERY_PROJECTS,
  DEMO_ANONYMOUS_LEAD,
  DEMO_SOURCE_TABLE,
  READ_ONLY_DATASET,
  type SandboxColumn,
  type SandboxQueryJob,
} from '@/sandbox/bigquery/warehouse';

/** A path of BigQuery's API under `projects` (and which project): a 404 of one names the method too. */
const API = /^\/bigquery\/bigquery\/v2\/projects(?:\/([^/]+)(\/.*)?)?$/;

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
// Query jobs

/** Checks one statement against the warehouse (parse, names, types, access); nothing runs yet. */
function prepareQuery(warehouse: Warehouse, projectId: string, config: Json): Prepared {
  if (config.useLegacySql === true) throw invalidQuery('The sandbox runs GoogleSQL only: set useLegacySql to false');
  const sql = String(config.query ?? '');
  if (!sql.trim()) throw invalid('Required parameter is missing: query');
  warehouse.queries.push(sql);
  const params = parametersOf(config);
  const defaultDataset = config.defaultDataset as { projectId?: string; datasetId?: string } | undefined;
  const table = (path: string[]): Table => {
    if (path.length === 3) return warehouse.table(path[0]!, path[1]!, path[2]!);
    if (path.length === 2) return warehouse.table(projectId, path[0]!, path[1]!);
    if (path.length === 1 && defaultDataset?.datasetId)
      return warehouse.table(defaultDataset.projectId ?? projectId, defaultDataset.datasetId, path[0]!);
    throw invalidQuery(`Table "${path.join('.')}" must be qualified with a dataset (e.g. dataset.table).`);
  };
  if (/^\s*MERGE\b/i.test(sql)) {
    const writable = (found: Table) =>
      warehouse.writable(warehouse.dataset(found.projectId, found.datasetId), 'bigquery.tables.updateData');
    return planMerge(sql, { params, table, writable });
  }
  const parsed = parseStatement(sql);
  if ('statementType' in parsed) {
    return {
      statementType: parsed.statementType,
      scans: [],
      run: () => {
        throw unsupported(`${parsed.statementType} statements`);
      },
    };
  }
  const plan = planSelect(parsed.ast, { sql, params, table, named: new Map() });
  return {
    statementType: 'SELECT',
    fields: plan.fields,
    scans: plan.scans(null),
    run: () => ({ statementType: 'SELECT', result: { fields: plan.fields, rows: plan.rows() } }),
  };
}

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

  type ProjectHandler = (req: IncomingMessage, res: ServerResponse, url: URL, projectId: string, params: RouteParams) => unknown;
  /** A route under `projects/{projectId}`: the project id percent-decoded (a malformed one fails the request), the other parameters as sent. */
  const inProject =
    (handler: ProjectHandler): RouteHandler =>
    (req, res, url, params) =>
      handler(req, res, url, decodeURIComponent(params.project!), params);
  /** What BigQuery answers a method a resource does not take. */
  const unknownMethod = (req: IncomingMessage, url: URL) => notFound(`${req.method ?? 'GET'} ${url.pathname}`);

  /** `GET projects`: the projects the sandbox account sees. */
  function listProjects(req: IncomingMessage, res: ServerResponse, url: URL) {
    if ((req.method ?? 'GET') !== 'GET') throw notFound(url.pathname);
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

  /** `POST datasets`: a new dataset (its id checked as BigQuery checks it), 409 when it exists. */
  const createDataset: ProjectHandler = async (req, res, _url, projectId) => {
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
  };

  const listDatasets: ProjectHandler = (_req, res, _url, projectId) => {
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
  };

  const getDataset: ProjectHandler = (_req, res, _url, projectId, params) =>
    json(res, 200, datasetResource(store, warehouse.dataset(projectId, decodeURIComponent(params.dataset!))));

  /** `datasets/{id}/tables`: GET lists the live tables, POST creates one (409 when it exists); the dataset must exist first. */
  const datasetTables: ProjectHandler = async (req, res, url, projectId, params) => {
    const owner = warehouse.dataset(projectId, decodeURIComponent(params.dataset!));
    if (req.method === 'GET') {
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
    if (req.method === 'POST') {
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
    throw unknownMethod(req, url);
  };

  /** `datasets/{id}/tables/{id}`: GET reads the table, DELETE drops it; the table must exist first. */
  const tableRoute: ProjectHandler = (req, res, url, projectId, params) => {
    const found = warehouse.table(projectId, decodeURIComponent(params.dataset!), decodeURIComponent(params.table!));
    if (req.method === 'GET') return json(res, 200, tableResource(store, found));
    if (req.method === 'DELETE') {
      const owner = warehouse.dataset(projectId, found.datasetId);
      warehouse.writable(owner, 'bigquery.tables.delete');
      owner.tables.delete(found.tableId);
      res.writeHead(204);
      return res.end();
    }
    throw unknownMethod(req, url);
  };

  /** `tabledata.list`: a page of the table's rows, in the fields asked for. */
  const tableData: ProjectHandler = (_req, res, url, projectId, params) => {
    const found = warehouse.table(projectId, decodeURIComponent(params.dataset!), decodeURIComponent(params.table!));
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
  };

  /** `jobs.insert`: query jobs run at once; loads come only through the upload endpoint. */
  const insertJob: ProjectHandler = async (req, res, _url, projectId) => {
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
  };

  const getJob: ProjectHandler = (_req, res, url, projectId, params) => {
    const job = warehouse.jobs.get(`${projectId}/${decodeURIComponent(params.job!)}`);
    if (!job) throw notFound(`Job ${projectId}:${url.searchParams.get('location') ?? LOCATION}.${params.job}`);
    return json(res, 200, jobResource(store, job));
  };

  /** `jobs.query`: a query answered in the response (its first page), or its dry run's estimate. */
  const jobsQuery: ProjectHandler = async (req, res, url, projectId) => {
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
  };

  /** `jobs.getQueryResults`: a page of a finished query job's rows. */
  const queryResults: ProjectHandler = (_req, res, url, projectId, params) => {
    const job = warehouse.jobs.get(`${projectId}/${decodeURIComponent(params.job!)}`);
    if (!job) throw notFound(`Job ${projectId}:${url.searchParams.get('location') ?? LOCATION}.${params.job}`);
    if (job.errors) throw jobError(job);
    if (!job.statementType) throw invalid(`Job ${job.jobId} is not a query job`);
    return json(res, 200, queryResponse(job, url));
  };

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

  const PROJECT = '/bigquery/bigquery/v2/projects/:project';
  const routes = routeTable(
    [
      ['* /bigquery/upload/bigquery/v2/projects/:project/jobs', inProject((req, res, url, projectId) => upload(req, res, url, projectId))],
      ['* /bigquery/bigquery/v2/projects', listProjects],
      [`POST ${PROJECT}/datasets`, inProject(createDataset)],
      [`GET ${PROJECT}/datasets`, inProject(listDatasets)],
      [`GET ${PROJECT}/datasets/:dataset`, inProject(getDataset)],
      [`* ${PROJECT}/datasets/:dataset/tables`, inProject(datasetTables)],
      [`* ${PROJECT}/datasets/:dataset/tables/:table`, inProject(tableRoute)],
      [`GET ${PROJECT}/datasets/:dataset/tables/:table/data`, inProject(tableData)],
      [`POST ${PROJECT}/jobs`, inProject(insertJob)],
      [`GET ${PROJECT}/jobs/:job`, inProject(getJob)],
      [`POST ${PROJECT}/queries`, inProject(jobsQuery)],
      [`GET ${PROJECT}/queries/:job`, inProject(queryResults)],
    ],
    (req, _res, url) => {
      const project = API.exec(url.pathname)?.[1];
      if (project === undefined) throw notFound(url.pathname);
      // The project id was decoded before the path was judged: a malformed one still fails the request.
      decodeURIComponent(project);
      throw unknownMethod(req, url);
    },
  );

  return {
    owns: (path) => path.startsWith('/bigquery/'),
    handle: async (req, res, url) => {
      const caller = store.bearerToken(req, url, 'google');
      if (!caller || !caller.scope.includes('/auth/bigquery')) return unauthenticated(res);
      try {
        return await routes(req, res, url);
      } catch (error) {
        if (error instanceof BigQueryError) return json(res, error.code, errorBody(error));
        throw error;
      }
    },
    data,
    page,
  };
}
