import { BigQuery, type Job } from '@google-cloud/bigquery';
import { PlatformError } from '@/lib/server/connectors/errors';
import { bigQueryError, call, clientFor, standardType, type ApiFailure } from '@/lib/server/connectors/bigquery/client';
import type { Session } from '@/lib/server/connectors/types';
import type { BigQuerySource } from '@/lib/shared/conversions/conversion';

/**
 * BigQuery as a conversion source: the rows of a table or of the user's own SELECT, read in the
 * source's project with the destination's login, page by page (never the whole result in memory),
 * in the order of the cursor column from a given value on. Every query job carries the source's
 * `maximumBytesBilled`, so a read never costs more than the user allowed.
 */

export interface Column {
  name: string;
  type: string;
}

export interface Described {
  columns: Column[];
  /** What BigQuery says a read of everything would process. */
  bytesProcessed: number;
}

/** Column types a cursor can be compared in (>=) and ordered by. */
const CURSOR_TYPES = new Set(['TIMESTAMP', 'DATETIME', 'DATE', 'INT64', 'STRING', 'NUMERIC', 'FLOAT64']);

/** Rows per results page: a few MB of JSON at most. */
export const PAGE_ROWS = 5000;

const quoted = (name: string) => `\`${name.replace(/[`\\]/g, '')}\``;

/** The user's statement without its trailing semicolon. */
const statementOf = (sql: string) => sql.trim().replace(/;\s*$/, '');

/**
 * What the query reads from: the table, or the user's statement as a subquery — on lines of its own,
 * so a `-- comment` on its last line ends there instead of swallowing the rest of the query.
 */
function fromOf(source: Pick<BigQuerySource, 'mode' | 'table' | 'sql'>): string {
  if (source.mode === 'table') return quoted(source.table.replace(':', '.'));
  return `(\n${statementOf(source.sql)}\n) AS source`;
}

/** BigQuery's refusal of a query, in words: the byte limit, a name it does not know, its own message. */
function queryError(error: unknown): PlatformError {
  const failure = (error ?? {}) as ApiFailure;
  const reason = failure.errors?.[0]?.reason;
  const message = failure.errors?.[0]?.message ?? failure.message ?? '';
  if (reason === 'bytesBilledLimitExceeded') {
    return new PlatformError(
      'bigquery',
      'invalid',
      `The read would bill more bytes than this conversion allows. Raise the limit, or read fewer columns or rows. BigQuery: ${message}`,
    );
  }
  if (reason === 'invalidQuery' || reason === 'notFound' || failure.code === 404 || failure.code === 400) {
    return new PlatformError('bigquery', 'invalid', `BigQuery could not run the query: ${message}`);
  }
  return bigQueryError(error);
}

/**
 * Checks what a source reads without running it (a dry run, which BigQuery does not bill): only one
 * SELECT statement, and the columns it gives.
 */
export async function describeSource(session: Session, source: BigQuerySource): Promise<Described> {
  const { bigquery } = clientFor(session, source.projectId);
  const query = source.mode === 'table' ? `SELECT * FROM ${fromOf(source)}` : statementOf(source.sql);
  const [job] = await call(() => bigquery.createQueryJob({ query, dryRun: true, useLegacySql: false }), queryError);
  const statistics = (job.metadata?.statistics ?? {}) as {
    totalBytesProcessed?: string;
    query?: { statementType?: string; schema?: { fields?: Column[] } };
  };
  // A dry run that does not say what the statement is is refused too: only a known SELECT is read.
  const statementType = statistics.query?.statementType ?? 'unknown statement';
  if (statementType !== 'SELECT')
    throw new PlatformError('bigquery', 'invalid', `Only a SELECT statement can be read; this one is a ${statementType}.`);
  const columns = (statistics.query?.schema?.fields ?? []).map((field) => ({ name: field.name, type: standardType(field.type) }));
  return { columns, bytesProcessed: Number(statistics.totalBytesProcessed ?? 0) };
}

/** Why a column cannot be the cursor, or null when it can. */
export function cursorProblem(columns: Column[], name: string): string | null {
  const column = columns.find((candidate) => candidate.name === name);
  if (!column) return `No column "${name}" in what this reads. Its columns: ${columns.map((candidate) => candidate.name).join(', ')}.`;
  if (!CURSOR_TYPES.has(column.type)) return `"${name}" is a ${column.type}: a cursor must be a timestamp, date, number or string column.`;
  return null;
}

/**
 * A cell as plain data: timestamps and dates as their text, NUMERIC as its decimal text, INT64 as its
 * digits (read wrapped, so an id past 2^53 keeps every digit and stays one event).
 */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') return value;
  if ('value' in value) return String((value as { value: unknown }).value);
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(plain);
  // NUMERIC arrives as a Big; anything else (a STRUCT) as JSON text.
  const text = (value as { toFixed?: unknown }).toFixed ? String(value) : JSON.stringify(value);
  return text;
}

export interface ReadPage {
  rows: Array<Record<string, unknown>>;
  /** Billed bytes of the job (on the first page; 0 after). */
  bytesBilled: number;
}

/**
 * Reads the rows whose cursor is at or past `from` (every row with a cursor when null), in cursor
 * order, one results page at a time: one query job per read, its result paged with getQueryResults.
 */
export async function* readRows(
  session: Session,
  source: BigQuerySource,
  from: string | null,
  options: { columns: Column[]; pageRows?: number },
): AsyncGenerator<ReadPage> {
  const problem = cursorProblem(options.columns, source.cursorColumn);
  if (problem) throw new PlatformError('bigquery', 'invalid', problem);
  const cursorType = options.columns.find((column) => column.name === source.cursorColumn)!.type;
  const cursor = quoted(source.cursorColumn);
  const where = from === null ? `${cursor} IS NOT NULL` : `${cursor} >= @cursor`;
  const query = `SELECT * FROM ${fromOf(source)} WHERE ${where} ORDER BY ${cursor}`;
  const { bigquery } = clientFor(session, source.projectId);
  const [job] = await call(
    () =>
      bigquery.createQueryJob({
        query,
        useLegacySql: false,
        maximumBytesBilled: String(source.maximumBytesBilled),
        ...(from === null ? {} : { params: { cursor: cursorParam(from, cursorType) }, types: { cursor: cursorType } }),
      }),
    queryError,
  );
  let pageToken: string | undefined;
  let first = true;
  do {
    const [rows, next, response] = await call(
      () => job.getQueryResults({ maxResults: options.pageRows ?? PAGE_ROWS, pageToken, autoPaginate: false, wrapIntegers: true }),
      queryError,
    );
    const page = (rows as Array<Record<string, unknown>>).map((row) =>
      Object.fromEntries(Object.entries(row).map(([name, value]) => [name, plain(value)])),
    );
    const billed = first ? await bytesBilled(job, response) : 0;
    first = false;
    pageToken = (next as { pageToken?: string } | null | undefined)?.pageToken;
    yield { rows: page, bytesBilled: billed };
  } while (pageToken);
}

const billedOf = (metadata: unknown) =>
  (metadata as { statistics?: { query?: { totalBytesBilled?: string } } } | undefined)?.statistics?.query?.totalBytesBilled;

/**
 * What a finished query job billed (statistics.query.totalBytesBilled). jobs.insert usually answers
 * while the job still runs, so the job is read again once its first results are in; failing that,
 * what it processed.
 */
async function bytesBilled(job: Job, response: unknown): Promise<number> {
  const known =
    billedOf(job.metadata) ??
    billedOf(
      await job.getMetadata().then(
        ([metadata]) => metadata,
        () => undefined,
      ),
    );
  return Number(known ?? (response as { totalBytesProcessed?: string } | undefined)?.totalBytesProcessed ?? 0);
}

/** The first rows in cursor order, or as they come before a cursor is picked (the preview): one small job, within the byte limit. */
export async function previewRows(session: Session, source: BigQuerySource, limit: number): Promise<Array<Record<string, unknown>>> {
  const { bigquery } = clientFor(session, source.projectId);
  const order = source.cursorColumn === '' ? '' : ` ORDER BY ${quoted(source.cursorColumn)}`;
  const query = `SELECT * FROM ${fromOf(source)}${order} LIMIT ${Math.max(1, Math.min(limit, 100))}`;
  const [rows] = await call(
    () => bigquery.query({ query, useLegacySql: false, maximumBytesBilled: String(source.maximumBytesBilled), wrapIntegers: true }),
    queryError,
  );
  return (rows as Array<Record<string, unknown>>).map((row) =>
    Object.fromEntries(Object.entries(row).map(([name, value]) => [name, plain(value)])),
  );
}

/**
 * A cursor value (as stored, text) as the query parameter of its column's type: the library sends
 * time types only from its own wrappers, INT64 and NUMERIC as text (no precision lost).
 */
function cursorParam(value: string, type: string): unknown {
  if (type === 'TIMESTAMP') return BigQuery.timestamp(value);
  if (type === 'DATE') return BigQuery.date(value);
  if (type === 'DATETIME') return BigQuery.datetime(value);
  if (type === 'FLOAT64') return Number(value);
  return value;
}
