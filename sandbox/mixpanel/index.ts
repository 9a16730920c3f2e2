/**
 * The sandbox's Mixpanel: a service account (Basic auth) per data residency (US, EU, IN), answering
 * GET /api/app/me with the project it may send to, and the Import API (POST /import) into that
 * project, validating as Mixpanel's strict mode does. Every imported event is kept per project under
 * Mixpanel's dedup key (event, distinct_id, time, $insert_id: a later copy replaces the earlier
 * one); conversions (every event but the ad-data sync's `Ad Data`) are also recorded in the ledger.
 * The Export API (GET /api/2.0/export) streams a project's events back as JSON lines, 60 queries an
 * hour per project; the US project starts with demo events (trials and renewals) to export.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { answerFailure } from '@/sandbox/conversions';
import { routeTable, type RouteHandler, type RouteParams } from '@/sandbox/routes';
import { escapeHtml, json, writable } from '@/sandbox/server';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

export const SANDBOX_MIXPANEL = {
  username: 'signalbridge.sandbox.mp-service-account',
  secret: 'sandbox-mixpanel-secret',
  projects: {
    US: { id: '3001', name: 'Acme Web (US)' },
    EU: { id: '3002', name: 'Acme Web (EU)' },
    IN: { id: '3003', name: 'Acme Web (IN)' },
  },
} as const;

type Residency = keyof typeof SANDBOX_MIXPANEL.projects;

const MIXPANEL_PATH = /^\/mixpanel\/(us|eu|in)(\/.*)$/;

/**
 * Mixpanel's import limits: events per request, and bytes of uncompressed body (gzip does not raise it).
 * The bytes are the Import API reference's 2 MB (https://developer.mixpanel.com/reference/import-events),
 * the lower of its two figures (its 413 page says 10 MB): the figure its own 413 sample names, 2097152.
 */
export const MIXPANEL_IMPORT_LIMITS = { events: 2000, bytes: 2 * 1024 * 1024 } as const;

/** Mixpanel's Export API limit: queries per project in any rolling window of this length. */
export const MIXPANEL_EXPORT_LIMIT = { queries: 60, windowMs: 3600 * 1000 } as const;

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
/**
 * Below this `time` is seconds, else milliseconds (Mixpanel takes both): 1e10 is the year 2286 in
 * seconds and late April 1970 in ms, so either reading of a value near it is out of range anyway.
 */
const SECONDS_BELOW = 1e10;

type Json = Record<string, unknown>;

/** The event the ad-data sync sends: ad spend, not a conversion (kept out of the conversions ledger). */
export const AD_DATA_EVENT = 'Ad Data';

/** One event as a project keeps it: its latest copy, and how many copies arrived. */
export interface MixpanelStoredEvent {
  event: string;
  properties: Json;
  receivedAt: number;
  receipts: number;
}

/** The events each project holds, deduplicated as Mixpanel's queries show them. */
export interface SandboxMixpanelEvents {
  /** A project's events, oldest first; only those named `name` when given. */
  events(projectId: string, name?: string): MixpanelStoredEvent[];
  /** Import requests a project accepted (including strict mode's partial successes). */
  importCalls(projectId: string): number;
  /** Stores events in a project as if imported (deduplicated the same way), without counting an import call or a conversion. */
  seed(projectId: string, events: Array<{ event: string; properties: Record<string, unknown> }>): void;
  /** Export queries a project answered (200s; refused ones are not counted). */
  exportCalls(projectId: string): number;
  /** Forgets every project's events, import calls, export calls and export rate-limit window. */
  reset(): void;
}

function createEventStore() {
  const projects = new Map<string, Map<string, MixpanelStoredEvent>>();
  const calls = new Map<string, number>();
  const exportCalls = new Map<string, number>();
  /** When each project's export queries of the last rolling window were answered (ms), oldest first. */
  const exportTimes = new Map<string, number[]>();
  function keep(projectId: string, event: string, properties: Json) {
    const key = `${event}|${properties.distinct_id === undefined ? '' : String(properties.distinct_id)}|${timeMs(properties.time)}|${String(properties.$insert_id)}`;
    const events = projects.get(projectId) ?? new Map<string, MixpanelStoredEvent>();
    projects.set(projectId, events);
    const existing = events.get(key);
    // Mixpanel shows the latest ingested copy: delete and re-add so it also sorts as the newest.
    events.delete(key);
    events.set(key, { event, properties, receivedAt: Date.now(), receipts: (existing?.receipts ?? 0) + 1 });
  }
  const api: SandboxMixpanelEvents = {
    events: (projectId, name) =>
      [...(projects.get(projectId)?.values() ?? [])].filter((stored) => name === undefined || stored.event === name),
    importCalls: (projectId) => calls.get(projectId) ?? 0,
    seed: (projectId, events) => events.forEach(({ event, properties }) => keep(projectId, event, properties)),
    exportCalls: (projectId) => exportCalls.get(projectId) ?? 0,
    reset: () => {
      projects.clear();
      calls.clear();
      exportCalls.clear();
      exportTimes.clear();
    },
  };
  /** Counts an export query against the project's rolling window; false when the window is already full. */
  function admitExport(projectId: string, now = Date.now()): boolean {
    const times = (exportTimes.get(projectId) ?? []).filter((at) => at > now - MIXPANEL_EXPORT_LIMIT.windowMs);
    exportTimes.set(projectId, times);
    if (times.length >= MIXPANEL_EXPORT_LIMIT.queries) return false;
    times.push(now);
    exportCalls.set(projectId, (exportCalls.get(projectId) ?? 0) + 1);
    return true;
  }
  return { keep, countCall: (projectId: string) => calls.set(projectId, (calls.get(projectId) ?? 0) + 1), admitExport, api, projects };
}

type EventStore = ReturnType<typeof createEventStore>;

interface FailedRecord {
  index: number;
  insert_id: string;
  field: string;
  message: string;
}

/** Mixpanel's answer to a whole request it refuses (401, 400, 413). */
const refuse = (res: ServerResponse, code: number, error: string) =>
  json(res, code, { code, error, status: code === 401 ? 'Unauthorized' : code === 413 ? 'Request Entity Too Large' : 'Bad Request' });

/** Whether the request carries the sandbox's service account (Basic, base64 or plain text as Mixpanel accepts). */
function serviceAccount(req: IncomingMessage): boolean {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  const value = header.slice(6).trim();
  const expected = `${SANDBOX_MIXPANEL.username}:${SANDBOX_MIXPANEL.secret}`;
  return value === expected || Buffer.from(value, 'base64').toString() === expected;
}

/** `time` in ms (given in seconds or ms), or null when it is no number. */
const timeMs = (time: unknown) => (typeof time === 'number' && Number.isFinite(time) ? (time < SECONDS_BELOW ? time * 1000 : time) : null);

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
async function importEvents(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  store: SandboxStore,
  residency: Residency,
  kept: EventStore,
) {
  const failing = store.conversions.failing('mixpanel');
  if (failing) return answerFailure(res, 'mixpanel', failing);
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

const DAY_MS = 24 * 3600 * 1000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The start of a YYYY-MM-DD day in UTC (ms), or null when it is no real date (2026-02-30 included). */
function dayStartMs(date: string): number | null {
  if (!DATE.test(date)) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date ? null : ms;
}

/** The export's query as Mixpanel checks it: the window [startMs, endMs) of whole UTC days and the event names, or its 400 message. */
function exportQuery(url: URL, nowMs: number): { startMs: number; endMs: number; names: Set<string> | null } | { error: string } {
  const from = url.searchParams.get('from_date');
  const to = url.searchParams.get('to_date');
  if (!from) return { error: "'from_date' is a required parameter" };
  if (!to) return { error: "'to_date' is a required parameter" };
  const startMs = dayStartMs(from);
  if (startMs === null) return { error: `'from_date' is invalid: '${from}' is not a date in the format YYYY-MM-DD` };
  const toStartMs = dayStartMs(to);
  if (toStartMs === null) return { error: `'to_date' is invalid: '${to}' is not a date in the format YYYY-MM-DD` };
  if (toStartMs < startMs) return { error: `'to_date' (${to}) cannot be before 'from_date' (${from})` };
  if (startMs > nowMs) return { error: `'from_date' (${from}) cannot be in the future` };
  const event = url.searchParams.get('event');
  if (event === null) return { startMs, endMs: toStartMs + DAY_MS, names: null };
  let names: unknown;
  try {
    names = JSON.parse(event);
  } catch {
    names = null;
  }
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string'))
    return { error: "'event' is invalid: must be a JSON array of event names" };
  return { startMs, endMs: toStartMs + DAY_MS, names: new Set(names as string[]) };
}

/** One stored event as the Export API prints it: `time` in seconds, and when Mixpanel processed it. */
function exportLine(stored: MixpanelStoredEvent, ms: number): string {
  // `time` first, as Mixpanel prints it: the spread keeps its place and the assignment sets seconds.
  const properties: Json = { time: null, ...stored.properties, mp_processing_time_ms: stored.receivedAt };
  properties.time = Math.floor(ms / 1000);
  return `${JSON.stringify({ event: stored.event, properties })}\n`;
}

/** Writes lines one by one, waiting whenever the client reads slower than we write; stops if it hangs up. */
async function streamLines(res: ServerResponse, lines: Iterable<string>) {
  for (const line of lines) {
    if (res.destroyed) return;
    if (!res.write(line)) await writable(res);
  }
  if (!res.destroyed) res.end();
}

/**
 * GET /api/2.0/export: the residency's project only. The project's events whose UTC day is within
 * [from_date, to_date], only those named in `event` (a JSON array) when given, sorted by time, as
 * newline-delimited JSON streamed line by line. 60 answered queries per project in any rolling hour,
 * then 429. Refusals carry Mixpanel's `{ request, error }` body. Honours the sandbox's Mixpanel
 * failure switch (an outage hits exports too).
 */
function exportEvents(req: IncomingMessage, res: ServerResponse, url: URL, store: SandboxStore, residency: Residency, kept: EventStore) {
  const request = `/api/2.0/export${url.search}`;
  const refuseExport = (code: number, error: string) => json(res, code, { request, error });
  const failing = store.conversions.failing('mixpanel');
  if (failing === 'hang') return answerFailure(res, 'mixpanel', failing);
  if (failing)
    return refuseExport(
      failing,
      failing === 429 ? 'Query rate limit exceeded' : failing === 503 ? 'Service Unavailable' : 'Internal Server Error',
    );
  if (!serviceAccount(req)) return refuseExport(401, 'Invalid credentials');
  const projectId = url.searchParams.get('project_id');
  if (!projectId) return refuseExport(401, 'project_id is required when authenticating with a service account');
  if (projectId !== SANDBOX_MIXPANEL.projects[residency].id) return refuseExport(401, 'Invalid credentials');
  const now = Date.now();
  const query = exportQuery(url, now);
  if ('error' in query) return refuseExport(400, query.error);
  if (!kept.admitExport(projectId, now)) return refuseExport(429, 'Query rate limit exceeded');

  const matching: Array<{ stored: MixpanelStoredEvent; ms: number }> = [];
  for (const stored of kept.projects.get(projectId)?.values() ?? []) {
    const ms = timeMs(stored.properties.time);
    if (ms === null || ms < query.startMs || ms >= query.endMs) continue;
    if (query.names && !query.names.has(stored.event)) continue;
    matching.push({ stored, ms });
  }
  matching.sort((a, b) => a.ms - b.ms);
  res.writeHead(200, { 'Content-Type': 'application/json' });
  return streamLines(
    res,
    (function* () {
      for (const { stored, ms } of matching) yield exportLine(stored, ms);
    })(),
  );
}

const DEMO_PLANS = [
  { plan: 'Starter', amount: 29 },
  { plan: 'Growth', amount: 79 },
  { plan: 'Scale', amount: 199 },
] as const;
const DEMO_EVENTS = 60;
/** The demo's events are this far apart (5.5 hours: 60 of them span the last 14 days). */
const DEMO_SPACING_S = 5.5 * 3600;

/**
 * The demo data of the US project: 60 `Trial Started` and `Subscription Renewed` events over the
 * last 14 days (relative to `nowMs`), each with distinct_id `user_<n>`, $insert_id, $email, plan,
 * amount (the plan's monthly price) and currency USD; every 4th carries a gclid and every 5th an fbclid. Deterministic: the
 * same `nowMs` gives the same events.
 */
export function seedDemoMixpanelEvents(events: Pick<SandboxMixpanelEvents, 'seed'>, nowMs = Date.now()) {
  const nowS = Math.floor(nowMs / 1000);
  const demo = Array.from({ length: DEMO_EVENTS }, (_, index) => {
    const n = DEMO_EVENTS - index; // oldest first, as if imported over time
    const user = (n % 40) + 1;
    const { plan, amount } = DEMO_PLANS[n % DEMO_PLANS.length]!;
    const renewal = n % 3 === 0;
    return {
      event: renewal ? 'Subscription Renewed' : 'Trial Started',
      properties: {
        time: nowS - 600 - Math.round(n * DEMO_SPACING_S),
        distinct_id: `user_${user}`,
        $insert_id: `demo-${renewal ? 'renewal' : 'trial'}-${n}`,
        $email: `user${user}@example.com`,
        plan,
        amount,
        currency: 'USD',
        ...(n % 4 === 0 ? { gclid: `demo-gclid-${n}` } : {}),
        ...(n % 5 === 0 ? { fbclid: `demo-fbclid-${n}` } : {}),
      },
    };
  });
  events.seed(SANDBOX_MIXPANEL.projects.US.id, demo);
}

function me(req: IncomingMessage, res: ServerResponse, residency: Residency) {
  if (!serviceAccount(req))
    return json(res, 401, { status: 'error', error: 'Invalid credentials' }, { 'WWW-Authenticate': 'Basic realm="Mixpanel"' });
  const project = SANDBOX_MIXPANEL.projects[residency];
  return json(res, 200, {
    status: 'ok',
    results: {
      id: 424242,
      name: 'SignalBridge sandbox',
      email: SANDBOX_MIXPANEL.username,
      is_service_account: true,
      projects: {
        [project.id]: {
          name: project.name,
          organization_id: 777,
          domain: residency === 'US' ? 'mixpanel.com' : `${residency.toLowerCase()}.mixpanel.com`,
          role: { name: 'Admin' },
        },
      },
    },
  });
}

/** Mixpanel's part of the sandbox (it keeps no logins: a service account is a key), and the events each project holds. */
export function createMixpanel(store: SandboxStore): SandboxPlatform & { events: SandboxMixpanelEvents; page: () => string } {
  const kept = createEventStore();
  seedDemoMixpanelEvents(kept.api);
  /** The sandbox page's section: each project's latest 200 `Ad Data` events, and how many other events it holds. */
  const page = () =>
    Object.values(SANDBOX_MIXPANEL.projects)
      .map((project) => {
        const events = kept.api.events(project.id, AD_DATA_EVENT);
        const others = (kept.projects.get(project.id)?.size ?? 0) - events.length;
        return `<h3>Project ${escapeHtml(project.id)} (${escapeHtml(project.name)}) — ${events.length} Ad Data events</h3>
<p class="muted">${others} other events (conversions, demo data), read through the Export API.</p>
<table><tr><th>$insert_id</th><th>Time</th><th>Copies</th><th>Properties</th></tr>${events
          .slice(-200)
          .reverse()
          .map(
            (stored) =>
              `<tr><td><code>${escapeHtml(stored.properties.$insert_id)}</code></td><td>${escapeHtml(new Date(timeMs(stored.properties.time) ?? 0).toISOString())}</td><td>${stored.receipts}</td><td><code>${escapeHtml(JSON.stringify(stored.properties))}</code></td></tr>`,
          )
          .join('')}</table>`;
      })
      .join('');

  /** The residency a path's prefix names (`/mixpanel/eu/…` is the EU data center's API). */
  const residencyOf = (params: RouteParams) => params.residency!.toUpperCase() as Residency;
  const exportRoute: RouteHandler = (req, res, url, params) => exportEvents(req, res, url, store, residencyOf(params), kept);
  const handle = routeTable(
    [
      ['GET /mixpanel/:residency(us|eu|in)/api/app/me', (req, res, _url, params) => me(req, res, residencyOf(params))],
      [
        'POST /mixpanel/:residency(us|eu|in)/import',
        (req, res, url, params) => importEvents(req, res, url, store, residencyOf(params), kept),
      ],
      ['GET /mixpanel/:residency(us|eu|in)/api/2.0/export', exportRoute],
      ['GET /mixpanel/:residency(us|eu|in)/api/2.0/export/', exportRoute],
    ],
    (_req, res) => json(res, 404, { status: 'error', error: 'Not found' }),
  );
  return {
    events: kept.api,
    page,
    owns: (path) => MIXPANEL_PATH.test(path),
    handle,
  };
}

/** The environment that points the app's Mixpanel client (app API and ingestion alike) at the sandbox at `url`. */
export function mixpanelEnv(url: string): Record<string, string> {
  return {
    MIXPANEL_API_URL_US: `${url}/mixpanel/us`,
    MIXPANEL_API_URL_EU: `${url}/mixpanel/eu`,
    MIXPANEL_API_URL_IN: `${url}/mixpanel/in`,
  };
}
