/**
 * The sandbox BigQuery's query jobs: a statement checked against the warehouse (parse, names, types,
 * access), billed as on-demand pricing bills it and refused above maximumBytesBilled, then run (SELECTs:
 * sandbox/bigquery/select.ts; MERGE: merge.ts) or only dry-run.
 */
import { randomUUID } from 'node:crypto';
import { planMerge } from '@/sandbox/bigquery/merge';
import { parseStatement, planSelect, unsupported, type Prepared, type Scan } from '@/sandbox/bigquery/select';
import { BigQueryError, invalid, invalidQuery, parametersOf, type Json } from '@/sandbox/bigquery/values';
import { LOCATION, tableColumnBytes, type Job, type Table, type Warehouse } from '@/sandbox/bigquery/warehouse';

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

/** A new job of the project, its id (given or made) checked and unique, nothing run yet. */
export function newJob(warehouse: Warehouse, projectId: string, body: Json): Job {
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
export function runQueryJob(warehouse: Warehouse, job: Job, config: Json, dryRun: boolean) {
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
