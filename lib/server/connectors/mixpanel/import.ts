import { mixpanelIngestionUrl } from '@/lib/server/connectors/mixpanel/config';
import { mixpanelSessionOf } from '@/lib/server/connectors/mixpanel/session';
import { requestJson } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Session } from '@/lib/server/connectors/types';
import { log } from '@/lib/server/log';

/**
 * Mixpanel's Import API (`POST /import?strict=1&project_id=…`), shared by conversions and, next,
 * the ad-data sync's 'Ad Data' events. Mixpanel keeps one copy of events whose name, distinct_id,
 * time and $insert_id all match, so sending again is safe when those four stay the same.
 */

/** How many events Mixpanel takes in one import request. */
export const MAX_IMPORT_EVENTS = 2000;

/**
 * The bytes of uncompressed JSON one import request carries at most. Mixpanel's Import API reference
 * says 2 MB, its 413 page 10 MB (both of the uncompressed body: gzip does not raise it); the lower one
 * holds under either (docs/PLATFORMS.md). A 413 all the same splits the request (importEvents).
 */
export const MAX_IMPORT_BYTES = 2 * 1024 * 1024;

/** What a single event refused with a 413 is rejected with: it cannot be made smaller. */
const TOO_LARGE = 'Too large: Mixpanel refuses an import request of this one event (over its size limit)';

/** One event in Mixpanel's import format: time in ms, `$insert_id` ≤ 36 characters of [A-Za-z0-9-]. */
export interface MixpanelEvent {
  event: string;
  properties: { time: number; distinct_id: string; $insert_id: string } & Record<string, unknown>;
}

/** An event Mixpanel refused while importing the others (strict mode's `failed_records`). */
export interface FailedRecord {
  /** Its position in the request. */
  index: number;
  field: string;
  message: string;
}

interface ImportBody {
  code?: number;
  error?: string;
  status?: string;
  num_records_imported?: number;
  failed_records?: Array<{ index?: number; field?: string; message?: string }>;
}

/**
 * What a refused import means for the caller: a 401 is the service account refused (its secret
 * revoked, or its role on the project lowered), which only reconnecting fixes; 429 is Mixpanel's
 * ingestion limit; 5xx may pass later; anything else (a 400 without per-record failures) is the
 * request itself, and smaller requests may pass. A 413 never gets here: importEvents splits on it.
 */
export function importError(status: number, body: ImportBody): PlatformError {
  if (status === 401)
    return new PlatformError(
      'mixpanel',
      'needs_reauth',
      'Mixpanel no longer accepts this service account for the project: its secret was revoked or its role changed.',
    );
  if (status === 429)
    return new PlatformError('mixpanel', 'rate_limited', 'Mixpanel is rate limiting this project. Try again in a minute.');
  if (status >= 500) {
    log.warn(
      { component: 'platforms', platform: 'mixpanel', status, platformError: String(body.error ?? '').slice(0, 200) },
      'Mixpanel had a transient error',
    );
    return new PlatformError('mixpanel', 'retryable', 'Mixpanel had a temporary problem. Try again in a minute.');
  }
  if (status === 403) return new PlatformError('mixpanel', 'forbidden', `Mixpanel refused access: ${body.error ?? 'forbidden'}`);
  log.warn(
    { component: 'platforms', platform: 'mixpanel', status, platformError: String(body.error ?? '').slice(0, 200) },
    'Mixpanel refused an import',
  );
  return new PlatformError('mixpanel', 'invalid', `Mixpanel refused the request: ${body.error ?? `HTTP ${status}`}`);
}

/** What an import did: the events Mixpanel refused (by their position in the events given) and the requests made. */
export interface ImportResult {
  failed: FailedRecord[];
  requests: number;
}

/**
 * Consecutive runs of events (as their JSON texts) each under MAX_IMPORT_BYTES of JSON array (the
 * texts, their commas and the brackets); the 2,000 events are the callers' (their batches). An event
 * over the bytes alone goes in a run of its own (Mixpanel's 413 then refuses it).
 */
export function importChunks(texts: string[]): Array<{ start: number; end: number }> {
  const chunks: Array<{ start: number; end: number }> = [];
  let start = 0;
  let bytes = 2;
  for (let index = 0; index < texts.length; index += 1) {
    const size = Buffer.byteLength(texts[index]!);
    if (index > start && bytes + 1 + size > MAX_IMPORT_BYTES) {
      chunks.push({ start, end: index });
      start = index;
      bytes = 2 + size;
    } else bytes += size + (index > start ? 1 : 0);
  }
  if (start < texts.length) chunks.push({ start, end: texts.length });
  return chunks;
}

/**
 * Imports events into the session's project, in strict mode, in as many requests as Mixpanel's caps
 * need. Resolves with the events Mixpanel refused (every other one is imported: a strict 400 is a
 * partial success); throws a PlatformError when a request failed as a whole (sending all again is safe:
 * Mixpanel keeps one copy). A 413 splits its request in halves, down to one event, then refused as too large.
 */
export async function importEvents(session: Session, events: MixpanelEvent[]): Promise<ImportResult> {
  const texts = events.map((event) => JSON.stringify(event));
  const result: ImportResult = { failed: [], requests: 0 };
  for (const { start, end } of importChunks(texts)) await importRange(session, texts, start, end, result);
  return result;
}

/** One request of texts[start, end), split in halves while Mixpanel answers 413. */
async function importRange(session: Session, texts: string[], start: number, end: number, result: ImportResult): Promise<void> {
  const { accessToken, projectId, residency } = mixpanelSessionOf(session);
  const query = new URLSearchParams({ strict: '1', project_id: projectId });
  const { status, body } = await requestJson('mixpanel', `${mixpanelIngestionUrl(residency)}/import?${query}`, {
    method: 'POST',
    headers: { Authorization: `Basic ${accessToken}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: `[${texts.slice(start, end).join(',')}]`,
  });
  result.requests += 1;
  if (status === 200) return;
  const answer = body as ImportBody;
  if (status === 400 && Array.isArray(answer.failed_records) && answer.failed_records.length > 0) {
    const count = end - start;
    for (const record of answer.failed_records)
      if (typeof record.index === 'number' && record.index >= 0 && record.index < count)
        result.failed.push({ index: start + record.index, field: record.field ?? '', message: record.message ?? 'Refused by Mixpanel' });
    return;
  }
  if (status === 413 && end - start === 1) {
    result.failed.push({ index: start, field: '', message: TOO_LARGE });
    return;
  }
  if (status === 413) {
    const middle = start + Math.ceil((end - start) / 2);
    await importRange(session, texts, start, middle, result);
    return importRange(session, texts, middle, end, result);
  }
  throw importError(status, answer);
}
