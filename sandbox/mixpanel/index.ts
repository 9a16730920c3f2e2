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
import type { Fake } from '@/sandbox/fake';
import { exportEvents } from '@/sandbox/mixpanel/export';
import { importEvents } from '@/sandbox/mixpanel/import';
import {
  AD_DATA_EVENT,
  createEventStore,
  SANDBOX_MIXPANEL,
  serviceAccount,
  timeMs,
  type Residency,
  type SandboxMixpanelEvents,
} from '@/sandbox/mixpanel/projects';
import { routeTable, type RouteHandler, type RouteParams } from '@/sandbox/routes';
import { escapeHtml, json } from '@/sandbox/server';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

const MIXPANEL_PATH = /^\/mixpanel\/(us|eu|in)(\/.*)$/;

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
export function createMixpanel(store: SandboxStore): SandboxPlatform & { events: SandboxMixpanelEvents } {
  const kept = createEventStore();
  seedDemoMixpanelEvents(kept.api);
  /** The destinations page's section: each project's latest 200 `Ad Data` events, and how many other events it holds. */
  const destinations = () =>
    `<h2>Mixpanel</h2>${Object.values(SANDBOX_MIXPANEL.projects)
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
      .join('')}`;

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
    destinations,
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

/** Mixpanel in the list of fakes (sandbox/fakes.ts): a destination that receives conversions, its service account to paste. */
export const MIXPANEL_FAKE = {
  slug: 'mixpanel',
  create: createMixpanel,
  env: mixpanelEnv,
  credentials: () =>
    `<li>Mixpanel: username <code>${SANDBOX_MIXPANEL.username}</code>, secret <code>${SANDBOX_MIXPANEL.secret}</code>, project ${SANDBOX_MIXPANEL.projects.US.id} (US), ${SANDBOX_MIXPANEL.projects.EU.id} (EU), ${SANDBOX_MIXPANEL.projects.IN.id} (IN)</li>`,
  conversions: 'mixpanel',
} as const satisfies Fake;
