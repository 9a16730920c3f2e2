/**
 * The sandbox's Mixpanel Import API (`POST /import`) into the service account's project of a residency,
 * validating as Mixpanel's strict mode does; conversions (every event but the ad-data sync's `Ad Data`)
 * are also recorded in the conversions ledger.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { answerFailure } from '@/sandbox/conversions';
import {
  AD_DATA_EVENT,
  mixpanelFailure,
  SANDBOX_MIXPANEL,
  serviceAccount,
  timeMs,
  type EventStore,
  type Residency,
} from '@/sandbox/mixpanel/projects';
import { json } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

/**
 * Mixpanel's import limits: events per request, and bytes of uncompressed body (gzip does not raise it).
 * The bytes are the Import API reference's 2 MB (https://developer.mixpanel.com/reference/import-events),
 * the lower of its two figures (its 413 page says 10 MB): the figure its own 413 sample names, 2097152.
 */
export const MIXPANEL_IMPORT_LIMITS = { events: 2000, bytes: 2 * 1024 * 1024 } as const;

/** Values Mixpanel refuses as distinct_id or $insert_id: placeholders that betray an implementation mistake. */
const PLACEHOLDER_IDS = new Set([
  '00000000-0000-0000-0000-000000000000',
  'anon',
  'anonymous',
  'nil',
  'none',
  'null',
  'n/a',
  'na',
  'undefined',
  'unknown',
  '<nil>',
  '0',
  '-1',
  'true',
  'false',
  '[]',
  '{}',
]);
const INSERT_ID = /^[A-Za-z0-9-]{1,36}$/;
const EARLIEST_MS = Date.UTC(1971, 0, 1);
const MAX_AHEAD_MS = 3600 * 1000;

type Json = Record<string, unknown>;

interface FailedRecord {
  index: number;
  insert_id: string;
  field: string;
  message: string;
}

/** Mixpanel's answer to a whole request it refuses (401, 400, 413). */
const refuse = (res: ServerResponse, code: number, error: string) =>
  json(res, code, { code, error, status: code === 401 ? 'Unauthorized' : code === 413 ? 'Request Entity Too Large' : 'Bad Request' });

/** What strict mode says about one record, or null when it imports. */
function recordProblem(record: unknown, index: number, nowMs: number): FailedRecord | null {
  const insertId = (record as { properties?: Json } | null)?.properties?.$insert_id;
  const fail = (field: string, message: string): FailedRecord => ({
    index,
    insert_id: typeof insertId === 'string' ? insertId : '',
    field,
    message,
  });
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return fail('', 'record must be a JSON object');
  const { event, properties } = record as Json;
  if (typeof event !== 'string' || event.trim() === '') return fail('event', "'event' is invalid: must be a non-empty string");
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    return fail('properties', "'properties' is invalid: must be a JSON object");
  const props = properties as Json;
  if (props.$insert_id === undefined) return fail('properties.$insert_id', "'properties.$insert_id' is required");
  if (typeof props.$insert_id !== 'string' || !INSERT_ID.test(props.$insert_id)) {
    return fail('properties.$insert_id', "'properties.$insert_id' is invalid: must be at most 36 characters of letters, digits and dashes");
  }
  if (PLACEHOLDER_IDS.has(props.$insert_id.toLowerCase()))
    return fail('properties.$insert_id', `'properties.$insert_id' is invalid: '${props.$insert_id}' is a placeholder value`);
  const time = timeMs(props.time);
  if (time === null)
    return fail('properties.time', "'properties.time' is invalid: must be specified as seconds or milliseconds since epoch");
  if (time < EARLIEST_MS) return fail('properties.time', "'properties.time' is invalid: must be after 1971-01-01");
  if (time > nowMs + MAX_AHEAD_MS)
    return fail('properties.time', "'properties.time' is invalid: must not be more than 1 hour in the future");
  const distinctId = props.distinct_id;
  if (distinctId !== undefined && typeof distinctId !== 'string' && typeof distinctId !== 'number') {
    return fail('properties.distinct_id', "'properties.distinct_id' is invalid: must be a string or a number");
  }
  if (distinctId !== undefined && PLACEHOLDER_IDS.has(String(distinctId).trim().toLowerCase())) {
    return fail(
      'properties.distinct_id',
      `'properties.distinct_id' is invalid: '${String(distinctId)}' is a placeholder value; send '' for an event without a user`,
    );
  }
  return null;
}

/** The request's events: a JSON array (or one object), or newline-delimited JSON; null when it does not parse. */
function parseEvents(text: string, contentType: string): unknown[] | null {
  try {
    if (contentType.includes('ndjson')) {
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown);
    }
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return null;
  }
}

async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * POST /import: the residency's project only, ≤ 2,000 events and 2 MB uncompressed (else 413). With
 * strict=1 each invalid record is named in `failed_records` (a 400) and the valid ones are
 * imported all the same; without it invalid records are dropped silently. Imported events go to
 * the ledger under Mixpanel's dedup key (project, event, distinct_id, time, $insert_id), the
 * latest copy kept.
 */
export async function importEvents(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  store: SandboxStore,
  residency: Residency,
  kept: EventStore,
) {
  const failing = store.conversions.failing('mixpanel');
  if (failing) return answerFailure(res, failing, mixpanelFailure);
  if (!serviceAccount(req)) return refuse(res, 401, 'Invalid credentials');
  const projectId = url.searchParams.get('project_id');
  if (!projectId) return refuse(res, 401, 'project_id is required when authenticating with a service account');
  // The service account belongs to one project per residency; any other project (or another residency's) is refused.
  if (projectId !== SANDBOX_MIXPANEL.projects[residency].id) return refuse(res, 401, 'Invalid credentials');

  let body = await rawBody(req);
  if ((req.headers['content-encoding'] ?? '').includes('gzip')) {
    try {
      body = gunzipSync(body, { maxOutputLength: MIXPANEL_IMPORT_LIMITS.bytes + 1 });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        return refuse(res, 413, `request exceeds max limit of ${MIXPANEL_IMPORT_LIMITS.bytes} bytes`);
      return refuse(res, 400, 'unable to decompress gzip body');
    }
  }
  if (body.length > MIXPANEL_IMPORT_LIMITS.bytes)
    return refuse(res, 413, `request exceeds max limit of ${MIXPANEL_IMPORT_LIMITS.bytes} bytes`);
  const events = parseEvents(body.toString('utf8'), req.headers['content-type'] ?? 'application/json');
  if (events === null) return refuse(res, 400, 'unable to parse request body as JSON');
  if (events.length === 0) return refuse(res, 400, 'no data: the request contains no events');
  if (events.length > MIXPANEL_IMPORT_LIMITS.events)
    return refuse(res, 400, `request exceeds max limit of ${MIXPANEL_IMPORT_LIMITS.events} events (it has ${events.length})`);

  const strict = url.searchParams.get('strict') === '1';
  const now = Date.now();
  const failed: FailedRecord[] = [];
  let imported = 0;
  let conversions = 0;
  for (const [index, event] of events.entries()) {
    const problem = recordProblem(event, index, now);
    if (problem) {
      failed.push(problem);
      continue;
    }
    const { event: name, properties } = event as { event: string; properties: Json };
    const distinctId = properties.distinct_id === undefined ? '' : String(properties.distinct_id);
    kept.keep(projectId, name, properties);
    if (name !== AD_DATA_EVENT) {
      store.conversions.record(
        'mixpanel',
        `${projectId}|${name}|${distinctId}|${timeMs(properties.time)}|${String(properties.$insert_id)}`,
        projectId,
        event as Json,
        'latest',
      );
      conversions += 1;
    }
    imported += 1;
  }
  kept.countCall(projectId);
  // A request of ad data only is no conversion call (the conversions page counts calls per platform).
  if (conversions > 0 || imported === 0) store.conversions.countCall('mixpanel');
  if (failed.length === 0 || !strict) return json(res, 200, { code: 200, num_records_imported: imported, status: 'OK' });
  return json(res, 400, {
    code: 400,
    error: 'some data points in the request failed validation',
    num_records_imported: imported,
    status: 'Bad Request',
    failed_records: failed,
  });
}
