/**
 * The server's and the worker's log: one JSON line per entry on stdout in Cloud Logging's structured
 * shape (pino with Google's own pino config: `severity`, `message`, `timestamp`, `serviceContext`,
 * `logging.googleapis.com/trace` and `…/spanId` from a request's trace header, an insert id), so Cloud
 * Run's agent files each line under its severity and trace with no parsing on our side.
 *
 * What may go in an entry: ids (organization, conversion, connection, run, delivery, event, request),
 * counts, codes and our own messages. Never a personal value (an email, a phone, a name, an address, an
 * IP): the redaction below is a net for the field names such values travel under, not a licence.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createGcpLoggingPinoConfig } from '@google-cloud/pino-logging-gcp-config';
import { pino, type Logger } from 'pino';

/** The ids an entry may be filed under; each becomes a Cloud Logging label (filterable, indexed). */
export interface LogLabels {
  org?: string;
  app?: string;
  conversion?: string;
  connection?: string;
  run?: string;
  delivery?: string;
  event?: string;
  request?: string;
}

const LABELS_KEY = 'logging.googleapis.com/labels';

/** Field names under which personal values travel in our code and in the platforms' payloads. */
const PERSONAL_FIELDS: ReadonlySet<string> = new Set([
  'email',
  'to',
  'phone',
  'name',
  'firstName',
  'lastName',
  'ip',
  'userAgent',
  'em',
  'ph',
  'fn',
  'ln',
]);
const CENSOR = '[personal]';

/** A copy of an object to censor fields of (an Error keeps its prototype, message and stack). */
function copyOf(value: object): Record<string, unknown> {
  if (value instanceof Error) {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(value) as object) as object, value, {
      message: value.message,
      stack: value.stack,
    });
    return copy as Record<string, unknown>;
  }
  return { ...(value as Record<string, unknown>) };
}

/**
 * An entry with every personal field censored: a top-level field, or a field of a top-level object, named as
 * in PERSONAL_FIELDS (what pino's `redact` paths `field` and `*.field` did, at a tenth of the cost: an entry is
 * copied only where it has such a field, and the caller's objects are never changed). Exported for its test.
 */
export function censorPersonal(entry: Record<string, unknown>): Record<string, unknown> {
  let out = entry;
  for (const key of Object.keys(entry)) {
    const value = entry[key];
    if (value === undefined) continue;
    if (PERSONAL_FIELDS.has(key)) {
      if (out === entry) out = { ...entry };
      out[key] = CENSOR;
      continue;
    }
    // An array's or a buffer's keys are indexes, never a field's name.
    if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) continue;
    let inner: Record<string, unknown> | undefined;
    for (const field of Object.keys(value)) {
      if (!PERSONAL_FIELDS.has(field) || (value as Record<string, unknown>)[field] === undefined) continue;
      inner ??= copyOf(value);
      inner[field] = CENSOR;
    }
    if (inner) {
      if (out === entry) out = { ...entry };
      out[key] = inner;
    }
  }
  return out;
}

function level(): string {
  if (process.env.LOG_LEVEL) return process.env.LOG_LEVEL;
  // Jest's API tests drive the real handlers and workers: their expected refusals need not fill the output.
  return process.env.JEST_WORKER_ID ? 'warn' : 'info';
}

/** What every entry written while one request (or one job) is handled carries: its trace and ids. */
const context = new AsyncLocalStorage<Record<string, unknown>>();

/** Runs `work` so that each entry it logs carries `fields` (a request's trace and labels, say). */
export function withLogContext<T>(fields: Record<string, unknown>, work: () => T): T {
  return context.run(fields, work);
}

function createLog(): Logger {
  const service = process.env.K_SERVICE || process.env.SIGNALBRIDGE_SERVICE || 'signalbridge';
  const project = process.env.GOOGLE_CLOUD_PROJECT || process.env.FIREBASE_PROJECT_ID || process.env.GCLOUD_PROJECT || '';
  return pino(
    createGcpLoggingPinoConfig(
      {
        // Both given, so the config never asks the metadata server (there is none locally).
        serviceContext: { service, ...(process.env.K_REVISION ? { version: process.env.K_REVISION } : {}) },
        traceGoogleCloudProjectId: project,
        inihibitDiagnosticMessage: true,
      },
      {
        level: level(),
        base: undefined,
        // A mixin, not a child's bindings: Google's config turns trace fields into the trace only in the entry itself.
        mixin: () => context.getStore() ?? {},
        mixinMergeStrategy: (logged: object, mixedIn: object) => {
          const entry = logged as Record<string, unknown>;
          const mixed = mixedIn as Record<string, unknown>;
          const merged = { ...mixed, ...entry };
          if (mixed[LABELS_KEY] && entry[LABELS_KEY])
            merged[LABELS_KEY] = { ...(mixed[LABELS_KEY] as object), ...(entry[LABELS_KEY] as object) };
          return merged;
        },
        // Before Google's formatter (which only adds fields of its own): every entry, the mixed-in context too.
        formatters: { log: censorPersonal },
      },
    ),
    // Written at once, as Node writes to a file or a pipe on Linux: pino's default queues each line to the thread
    // pool (about 10 µs of the event loop a line against 1), and a request's line was most of a 202's own cost.
    pino.destination({ dest: 1, sync: true }),
  );
}

export const log: Logger = createLog();

/** The labels part of an entry: `log.info({ ...labels({ org, conversion }), count }, 'message')`. */
export function labels(ids: LogLabels): Record<string, Record<string, string>> {
  const defined = Object.entries(ids).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '');
  return defined.length ? { [LABELS_KEY]: Object.fromEntries(defined) } : {};
}

/** At most this many event ids go in one entry: a batch of 2,000 is followed by its first ids and its count. */
export const MAX_LOGGED_EVENT_IDS = 100;

/**
 * The ids of a request's or a batch's events as an entry's fields (`eventIds`, the first MAX_LOGGED_EVENT_IDS,
 * and `eventCount`): one event is followed from ingest to its delivery record by `jsonPayload.eventIds="…"`.
 */
export function eventIdsOf(events: ReadonlyArray<{ id: string }>): { eventIds: string[]; eventCount: number } {
  const eventIds = new Array<string>(Math.min(events.length, MAX_LOGGED_EVENT_IDS));
  for (let index = 0; index < eventIds.length; index += 1) eventIds[index] = events[index]!.id;
  return { eventIds, eventCount: events.length };
}

/** An error as an entry's fields: its message, and its stack for errors that are ours to fix. */
export function errorFields(error: unknown): { err?: Error; error?: string } {
  if (error instanceof Error) return { err: error };
  return { error: String(error) };
}

/**
 * The trace of a request from Google's front end (`X-Cloud-Trace-Context: TRACE/SPAN;o=1`) or a W3C
 * `traceparent` (`00-TRACE-SPAN-FLAGS`), in the fields Google's pino config turns into the entry's trace.
 */
export function traceFields(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const traceparent = String(headers.traceparent ?? '');
  const w3c = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/.exec(traceparent);
  if (w3c) return { trace_id: w3c[1]!, span_id: w3c[2]!, trace_flags: w3c[3]! };
  const cloud = /^([\da-f]{32})(?:\/(\d+))?(?:;o=([01]))?$/.exec(String(headers['x-cloud-trace-context'] ?? ''));
  if (cloud) return { trace_id: cloud[1]!, ...(cloud[2] ? { span_id: cloud[2] } : {}), ...(cloud[3] ? { trace_flags: cloud[3] } : {}) };
  return {};
}
