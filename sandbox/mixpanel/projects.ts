/**
 * The sandbox's Mixpanel projects: the service account and its one project per data residency, and the
 * events each project holds, deduplicated under Mixpanel's key (event, distinct_id, time, $insert_id: a
 * later copy replaces the earlier one), with the import calls and the Export API's rolling query window.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { json } from '@/sandbox/server';

/** The service account the app is given, and its project in each data residency. */
export const SANDBOX_MIXPANEL = {
  username: 'signalbridge.sandbox.mp-service-account',
  secret: 'sandbox-mixpanel-secret',
  projects: {
    US: { id: '3001', name: 'Acme Web (US)' },
    EU: { id: '3002', name: 'Acme Web (EU)' },
    IN: { id: '3003', name: 'Acme Web (IN)' },
  },
} as const;

/** A data residency: its own API host and its own project. */
export type Residency = keyof typeof SANDBOX_MIXPANEL.projects;

/** Mixpanel's Export API limit: queries per project in any rolling window of this length. */
export const MIXPANEL_EXPORT_LIMIT = { queries: 60, windowMs: 3600 * 1000 } as const;

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

/** Every project's events, calls and export window, and the API tests read them through. */
export function createEventStore() {
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

export type EventStore = ReturnType<typeof createEventStore>;

/** Whether the request carries the sandbox's service account (Basic, base64 or plain text as Mixpanel accepts). */
export function serviceAccount(req: IncomingMessage): boolean {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  const value = header.slice(6).trim();
  const expected = `${SANDBOX_MIXPANEL.username}:${SANDBOX_MIXPANEL.secret}`;
  return value === expected || Buffer.from(value, 'base64').toString() === expected;
}

/** `time` in ms (given in seconds or ms), or null when it is no number. */
export const timeMs = (time: unknown) =>
  typeof time === 'number' && Number.isFinite(time) ? (time < SECONDS_BELOW ? time * 1000 : time) : null;

/** A switched-on transient failure as Mixpanel answers it (it documents no Retry-After: clients back off on their own, 2 s doubling to 60 s). */
export function mixpanelFailure(res: ServerResponse, status: 500 | 429 | 503) {
  const body =
    status === 429
      ? {
          code: 429,
          error: 'Project exceeded rate limits. Please retry the request with exponential backoff.',
          status: 'Too Many Requests',
        }
      : {
          code: status,
          error: status === 503 ? 'Service Unavailable' : 'Internal Server Error',
          status: status === 503 ? 'Service Unavailable' : 'Internal Server Error',
        };
  return json(res, status, body);
}
