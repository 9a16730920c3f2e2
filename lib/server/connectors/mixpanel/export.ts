import { mixpanelExportUrl } from '@/lib/server/connectors/mixpanel/config';
import { mixpanelSessionOf } from '@/lib/server/connectors/mixpanel/session';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Session } from '@/lib/server/connectors/types';
import { errorFields, log } from '@/lib/server/log';

/**
 * Mixpanel's Export API (`GET /api/2.0/export?project_id=…&from_date=…&to_date=…[&event=…]` on the
 * residency's data host): a project's raw events as newline-delimited JSON, one event per line,
 * sorted by time (`time` in seconds). Read as a stream and handed on in batches, so a month of a busy
 * project never sits in memory whole. Mixpanel allows 60 export queries an hour per project.
 */

/** One exported event as Mixpanel prints it (`properties.time` in seconds, distinct_id, $insert_id, …). */
export interface ExportedEvent {
  event: string;
  properties: Record<string, unknown>;
}

export interface ExportInput {
  /** First UTC day (YYYY-MM-DD), inclusive. */
  fromDate: string;
  /** Last UTC day (YYYY-MM-DD), inclusive. */
  toDate: string;
  /** Only events of these names; empty: every event. */
  events: string[];
  /** Events per yielded batch (default 1,000). */
  batchSize?: number;
  /** Called with each line that is not an event (not JSON, or without `event` and `properties`); the line is skipped. */
  onMalformed?: (line: string) => void;
}

export const DEFAULT_EXPORT_BATCH = 1000;

/**
 * How long Mixpanel may stay silent (before answering, or between two chunks) before we give up.
 * A large export can take minutes to start (Mixpanel advises clients to wait over a minute).
 */
const IDLE_TIMEOUT_MS = 120_000;

/** Mixpanel sends no Retry-After on its hourly export limit: we try again after this long. */
const RATE_LIMIT_RETRY_MS = 10 * 60 * 1000;

/** When a throttled caller may call again: from a Retry-After header (seconds or an HTTP date), else in 10 minutes. */
function retryAtOf(retryAfter: string | null, now: number): Date {
  const seconds = Number(retryAfter ?? '');
  if (retryAfter && Number.isFinite(seconds)) return new Date(now + seconds * 1000);
  const at = retryAfter ? Date.parse(retryAfter) : Number.NaN;
  return Number.isNaN(at) ? new Date(now + RATE_LIMIT_RETRY_MS) : new Date(at);
}

/**
 * A refused export as a PlatformError: 401/403 is the service account refused (revoked secret,
 * lost role), which only reconnecting fixes; 429 the hourly query limit; 400 the query itself, in
 * Mixpanel's words; 5xx may pass later.
 */
export function exportError(status: number, error: string | undefined, retryAfter: string | null = null, now = Date.now()): PlatformError {
  const said = error ?? `HTTP ${status}`;
  if (status === 401 || status === 403)
    return new PlatformError('mixpanel', 'needs_reauth', `Mixpanel refused the service account: ${said}`);
  if (status === 429) {
    return new PlatformError(
      'mixpanel',
      'rate_limited',
      'Mixpanel allows 60 exports an hour per project and this project reached it. Trying again later.',
      retryAtOf(retryAfter, now),
    );
  }
  if (status >= 500) {
    log.warn(
      { component: 'platforms', platform: 'mixpanel', status, platformError: String(error ?? '').slice(0, 200) },
      'Mixpanel had a transient error',
    );
    return new PlatformError('mixpanel', 'retryable', 'Mixpanel had a temporary problem. Try again in a minute.');
  }
  log.warn(
    { component: 'platforms', platform: 'mixpanel', status, platformError: String(error ?? '').slice(0, 200) },
    'Mixpanel refused an export',
  );
  return new PlatformError('mixpanel', 'invalid', `Mixpanel refused the export: ${said}`);
}

/** The `error` of Mixpanel's JSON refusal body (`{ request, error }`), or the start of whatever else it sent. */
async function refusalText(response: Response): Promise<string | undefined> {
  const text = await response.text().catch(() => '');
  try {
    const { error } = JSON.parse(text) as { error?: unknown };
    if (typeof error === 'string') return error;
  } catch {
    // Not JSON (a proxy's page): its start says enough.
  }
  return text ? text.slice(0, 200) : undefined;
}

/** The network failed mid-way (reset, timeout): the export may pass when run again. */
function unreachable(error: unknown): PlatformError {
  log.warn({ component: 'platforms', platform: 'mixpanel', ...errorFields(error) }, 'Mixpanel export unreachable');
  return new PlatformError('mixpanel', 'retryable', 'Mixpanel could not be reached. Try again in a minute.');
}

/** An abort signal that fires after `ms` of silence; `touch()` restarts the wait, `stop()` ends it. */
function idleTimeout(ms: number) {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error(`no answer from Mixpanel for ${ms / 1000} s`)), ms);
    timer.unref?.();
  };
  touch();
  return { signal: controller.signal, touch, stop: () => clearTimeout(timer) };
}

/** The body's lines, decoded as UTF-8 across chunk boundaries; a broken stream becomes a retryable PlatformError. */
async function* linesOf(body: ReadableStream<Uint8Array>, onChunk: () => void): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw unreachable(error);
      }
      if (chunk.done) break;
      onChunk();
      rest += decoder.decode(chunk.value, { stream: true });
      const lines = rest.split('\n');
      rest = lines.pop()!;
      yield* lines;
    }
    rest += decoder.decode();
    if (rest !== '') yield rest;
  } finally {
    // Stopped early (the caller had enough, or failed): let go of the connection.
    await reader.cancel().catch(() => undefined);
  }
}

/** One line as an event, or null when it is not one (blank, not JSON, no string `event` or no object `properties`). */
function eventOf(line: string): ExportedEvent | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { event, properties } = parsed as { event?: unknown; properties?: unknown };
  if (typeof event !== 'string' || typeof properties !== 'object' || properties === null || Array.isArray(properties)) return null;
  return { event, properties: properties as Record<string, unknown> };
}

/**
 * Streams a project's events of [fromDate, toDate] (UTC days, inclusive), in batches of at most
 * `batchSize` (default 1000), never holding the whole response. One export query, sent when the
 * first batch is asked for; stopping early closes the connection. Throws a PlatformError:
 * needs_reauth, rate_limited (with `retryAt`), invalid (Mixpanel's words), retryable.
 */
export async function* exportEvents(session: Session, input: ExportInput): AsyncGenerator<ExportedEvent[]> {
  const { accessToken, projectId, residency } = mixpanelSessionOf(session);
  const batchSize = input.batchSize ?? DEFAULT_EXPORT_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, not ${batchSize}`);
  const query = new URLSearchParams({ project_id: projectId, from_date: input.fromDate, to_date: input.toDate });
  if (input.events.length > 0) query.set('event', JSON.stringify(input.events));

  const idle = idleTimeout(IDLE_TIMEOUT_MS);
  try {
    let response: Response;
    try {
      response = await fetch(`${mixpanelExportUrl(residency)}/api/2.0/export?${query}`, {
        headers: { Authorization: `Basic ${accessToken}`, Accept: 'application/json' },
        signal: idle.signal,
      });
    } catch (error) {
      throw unreachable(error);
    }
    if (response.status !== 200) throw exportError(response.status, await refusalText(response), response.headers.get('retry-after'));
    if (!response.body) return;

    let batch: ExportedEvent[] = [];
    for await (const line of linesOf(response.body, idle.touch)) {
      if (line.trim() === '') continue;
      const event = eventOf(line);
      if (!event) {
        input.onMalformed?.(line);
        continue;
      }
      batch.push(event);
      if (batch.length === batchSize) {
        // The caller may take its time with a batch: Mixpanel's silence is only counted while we read.
        idle.stop();
        yield batch;
        idle.touch();
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    idle.stop();
  }
}
