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
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fake } from '@/sandbox/fake';
import { newJob, runQueryJob } from '@/sandbox/bigquery/jobs';
import {
  datasetResource,
  dryRunResource,
  int64TimestampsOf,
  jobError,
  jobResource,
  jsonBody,
  pageOf,
  queryResponse,
  rawBody,
  tableResource,
  wireRows,
} from '@/sandbox/bigquery/resources';
import { BigQueryError, errorBody, invalid, notFound, plainOf, type Json } from '@/sandbox/bigquery/values';
import {
  BIGQUERY_PROJECTS,
  createWarehouse,
  DATASET_ID,
  LOCATION,
  multipartParts,
  newTable,
  runLoad,
  appendRows,
  type Dataset,
  type SandboxColumn,
  type SandboxQueryJob,
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

/** BigQuery's part of the sandbox, and what it holds (for tests and the destinations page). */
export function createBigQuery(store: SandboxStore): SandboxPlatform & { data: SandboxBigQuery } {
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
    const job = newJob(warehouse, projectId, body);
    const configuration = job.configuration;
    if (configuration.query) {
      const dryRun = configuration.dryRun === true;
      runQueryJob(warehouse, job, configuration.query as Json, dryRun);
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
    const job = newJob(warehouse, projectId, { jobReference: { location: body.location } });
    const dryRun = body.dryRun === true;
    const { query, useLegacySql, parameterMode, queryParameters, defaultDataset, maximumBytesBilled } = body;
    runQueryJob(warehouse, job, { query, useLegacySql, parameterMode, queryParameters, defaultDataset, maximumBytesBilled }, dryRun);
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
    const job = newJob(warehouse, projectId, body);
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

  /** The destinations page's section: every table and its latest 200 rows. */
  function destinations() {
    const tables = warehouse.liveTables();
    const intro =
      '<h2>BigQuery</h2><p class="muted">Dataset <code>acme-analytics.shared_reports</code> is shared read-only: writes to it are refused.</p>';
    if (tables.length === 0) return `${intro}<p class="muted">No BigQuery tables yet.</p>`;
    return (
      intro +
      tables
        .map((found) => {
          const rows = found.rows.slice(-200).reverse();
          return `<h3><code>${escapeHtml(`${found.projectId}.${found.datasetId}.${found.tableId}`)}</code> — ${found.rows.length} rows${found.timePartitioning ? `, partitioned by ${escapeHtml(found.timePartitioning.field ?? '_PARTITIONTIME')}` : ''}${found.clustering ? `, clustered by ${escapeHtml(found.clustering.fields.join(', '))}` : ''}</h3>
<table><tr>${found.fields.map((field) => `<th>${escapeHtml(field.name)}</th>`).join('')}</tr>${rows
            .map(
              (row) => `<tr>${found.fields.map((field) => `<td>${escapeHtml(plainOf(row[field.name] ?? null) ?? '')}</td>`).join('')}</tr>`,
            )
            .join('')}</table>`;
        })
        .join('')
    );
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
    destinations,
  };
}

/** The environment that points the app's BigQuery client at the sandbox at `url`. */
export function bigqueryEnv(url: string): Record<string, string> {
  return { BIGQUERY_API_URL: `${url}/bigquery` };
}

/** BigQuery in the list of fakes (sandbox/fakes.ts): a warehouse and destination, its service-account key to download. */
export const BIGQUERY_FAKE = {
  slug: 'bigquery',
  create: createBigQuery,
  env: bigqueryEnv,
  credentials: (base: string) =>
    `<li>BigQuery service-account key: <a href="${base}/__sandbox/google/service-account-key.json">download</a></li>`,
} as const satisfies Fake;
