/**
 * BigQuery's resources as its REST API returns them (datasets, tables, jobs, a dry run) and the HTTP
 * helpers of the sandbox's BigQuery (sandbox/bigquery/index.ts): bodies, pages of rows in the `{f: [{v}]}`
 * form, a query's response and a failed job's error.
 */
import type { IncomingMessage } from 'node:http';
import { BigQueryError, invalid, wireOf, type Field, type Json, type Row } from '@/sandbox/bigquery/values';
import { LOCATION, tableColumnBytes, type Dataset, type Job, type Table } from '@/sandbox/bigquery/warehouse';
import type { SandboxStore } from '@/sandbox/store';

const base = (store: SandboxStore) => `${store.base}/bigquery/bigquery/v2`;

export function datasetResource(store: SandboxStore, owner: Dataset) {
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

export function tableResource(store: SandboxStore, found: Table) {
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

export function jobResource(store: SandboxStore, job: Job) {
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
export function dryRunResource(job: Job) {
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

export async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export const jsonBody = async (req: IncomingMessage): Promise<Json> => {
  const text = (await rawBody(req)).toString('utf8');
  try {
    return text ? (JSON.parse(text) as Json) : {};
  } catch {
    throw invalid('Invalid JSON payload received.');
  }
};

/** Rows in BigQuery's `{f: [{v}]}` form. */
export const wireRows = (rows: Row[], fields: Field[], int64Timestamps: boolean) =>
  rows.map((row) => ({ f: fields.map((field) => ({ v: wireOf(row[field.name] ?? null, int64Timestamps) })) }));

/** A page of rows: `pageToken` is the next offset, `startIndex` a starting row. */
export function pageOf<T>(rows: T[], url: URL, bodyMax?: unknown): { page: T[]; pageToken?: string } {
  const max = Number(url.searchParams.get('maxResults') ?? bodyMax ?? 100_000);
  const start = Number(url.searchParams.get('pageToken') ?? url.searchParams.get('startIndex') ?? 0);
  const size = Number.isFinite(max) && max >= 0 ? Math.min(max, 100_000) : 100_000;
  const page = rows.slice(start, start + size);
  return { page, ...(start + size < rows.length ? { pageToken: String(start + size) } : {}) };
}

/** Whether a read asks for TIMESTAMPs as int64 microseconds (formatOptions.useInt64Timestamp). */
export const int64TimestampsOf = (url: URL, body?: Json) =>
  url.searchParams.get('formatOptions.useInt64Timestamp') === 'true' ||
  (body?.formatOptions as Json | undefined)?.useInt64Timestamp === true;

/** A failed job's error as the API answers jobs.query and getQueryResults of it: 400 with the job's reason. */
export const jobError = (job: Job) => {
  const error = job.errors![0]!;
  return new BigQueryError(400, error.reason, error.message, error.location);
};

/** A query job's answer as jobs.query and getQueryResults give it: its schema, a page of rows, and its statistics. */
export function queryResponse(job: Job, url: URL, body?: Json) {
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
