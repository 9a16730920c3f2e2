import { BigQuery, type Dataset, type Table, type TableField } from '@google-cloud/bigquery';
import { OAuth2Client } from 'google-auth-library';
import { bigQueryConfig } from '@/lib/server/connectors/bigquery/config';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Session } from '@/lib/server/connectors/types';
import { log } from '@/lib/server/log';

/**
 * What the BigQuery writer (ad performance) and delivery (an app's conversions) share: a client on our
 * own sealed credentials, the classification of BigQuery's failures, and the dataset, load and
 * staging plumbing of a "load into staging, then MERGE" write.
 */

/** How long a staging table lives if its writer dies before dropping it. */
export const STAGING_TTL_MS = 3600 * 1000;

/** An OAuth2 client carrying the session's access token, counting the requests it signs. */
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

export interface Resolved {
  projectId: string;
  datasetId: string;
  tableId: string;
}

/** BigQuery's legacy type names as the standard ones, to compare a table's schema with ours. */
const TYPE_ALIASES: Record<string, string> = { INTEGER: 'INT64', FLOAT: 'FLOAT64', BOOLEAN: 'BOOL', BIGNUMERIC: 'NUMERIC' };
export const standardType = (type: string) => TYPE_ALIASES[type.toUpperCase()] ?? type.toUpperCase();

export function clientFor(session: Session, projectId: string) {
  const auth = new SessionAuth(session.accessToken);
  // The library appends /bigquery/v2 to apiEndpoint (and uploads to {apiEndpoint}/upload/bigquery/v2):
  // BIGQUERY_API_URL is the host, e.g. https://bigquery.googleapis.com or the sandbox's …/bigquery.
  // No automatic retries: a refusal is classified here and the sync retries the whole, idempotent write.
  const bigquery = new BigQuery({ projectId, apiEndpoint: bigQueryConfig().apiUrl, authClient: auth, autoRetry: false });
  return { bigquery, calls: () => auth.requests };
}

export interface ApiFailure {
  code?: number | string;
  errors?: Array<{ reason?: string; message?: string }>;
  message?: string;
}

const TRANSIENT_REASONS = new Set([
  'backendError',
  'internalError',
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'quotaExceeded',
  'jobRateLimitExceeded',
]);
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
  if (status === 401)
    return new PlatformError(
      'bigquery',
      'needs_reauth',
      'BigQuery no longer accepts this login: it was revoked or has expired. Reconnect BigQuery.',
    );
  if (
    (typeof failure.code === 'string' && NETWORK_CODES.has(failure.code)) ||
    (status !== undefined && status >= 500) ||
    TRANSIENT_REASONS.has(reason)
  ) {
    log.warn({ component: 'platforms', platform: 'bigquery', status, reason }, 'BigQuery had a transient error');
    return new PlatformError('bigquery', 'retryable', 'BigQuery had a temporary problem. Try again in a minute.');
  }
  // Two DML statements on the same partitions at once (accounts of a connection written side by side):
  // BigQuery aborts one; it passes when tried again.
  if (/concurrent update|could not serialize access/i.test(detail ?? '')) {
    return new PlatformError('bigquery', 'retryable', 'BigQuery was writing another change to this table at the same time. Trying again.');
  }
  if (status === 403 || reason === 'accessDenied') {
    return new PlatformError(
      'bigquery',
      'forbidden',
      `BigQuery refused access: ${detail ?? 'permission denied'}. Give this login the BigQuery Data Editor and Job User roles.`,
    );
  }
  log.warn({ component: 'platforms', platform: 'bigquery', status, reason, detail: detail?.slice(0, 200) }, 'BigQuery refused a request');
  return new PlatformError('bigquery', 'invalid', `BigQuery refused the request: ${detail ?? 'unknown error'}`);
}

export const isNotFound = (error: unknown) => (error as ApiFailure).code === 404;
export const isDuplicate = (error: unknown) => (error as ApiFailure).code === 409;

export async function call<T>(work: () => Promise<T>, classify: (error: unknown) => PlatformError = bigQueryError): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw classify(error);
  }
}

/** A dataset's or table's metadata, or null when it does not exist. */
export async function metadataOrNull(
  resource: Dataset | Table,
  classify: (error: unknown) => PlatformError = bigQueryError,
): Promise<{ schema?: { fields?: TableField[] } } | null> {
  try {
    const [metadata] = await resource.getMetadata();
    return metadata as { schema?: { fields?: TableField[] } };
  } catch (error) {
    if (isNotFound(error)) return null;
    throw classify(error);
  }
}

/** The dataset, created when missing (another writer may create it at the same moment). */
export async function ensureDataset(
  bigquery: BigQuery,
  names: Resolved,
  classify: (error: unknown) => PlatformError = bigQueryError,
): Promise<Dataset> {
  const dataset = bigquery.dataset(names.datasetId);
  if (await metadataOrNull(dataset, classify)) return dataset;
  try {
    await bigquery.createDataset(names.datasetId);
  } catch (error) {
    // Another writer created it in the meantime.
    if (!isDuplicate(error)) throw classify(error);
  }
  return dataset;
}

/** A decimal for a NUMERIC column: at most 9 fractional digits, never in exponent notation. */
export const numeric = (value: number) => {
  const text = value.toFixed(9).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
};

/** Loads NDJSON into a table through the library's multipart upload and waits for the load job. */
export function load(table: Table, lines: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = table.createWriteStream({
      sourceFormat: 'NEWLINE_DELIMITED_JSON',
      writeDisposition: 'WRITE_TRUNCATE',
      createDisposition: 'CREATE_NEVER',
    });
    stream.on('error', reject).on('complete', () => resolve());
    stream.end(`${lines.join('\n')}\n`);
  });
}
