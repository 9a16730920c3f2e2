/**
 * The sandbox's Mixpanel Export API (`GET /api/2.0/export`): a project's events streamed back as JSON
 * lines, 60 queries an hour per project (sandbox/mixpanel/projects.ts keeps the window).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerFailure } from '@/sandbox/conversions';
import {
  mixpanelFailure,
  SANDBOX_MIXPANEL,
  serviceAccount,
  timeMs,
  type EventStore,
  type MixpanelStoredEvent,
  type Residency,
} from '@/sandbox/mixpanel/projects';
import { json, writable } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

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
export function exportEvents(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  store: SandboxStore,
  residency: Residency,
  kept: EventStore,
) {
  const request = `/api/2.0/export${url.search}`;
  const refuseExport = (code: number, error: string) => json(res, code, { request, error });
  const failing = store.conversions.failing('mixpanel');
  if (failing === 'hang') return answerFailure(res, failing, mixpanelFailure);
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
