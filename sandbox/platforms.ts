/**
 * The local sandbox of the ad and analytics platforms: one server that plays Google (OAuth, Google
 * Ads API v26, BigQuery), Meta (Facebook Login, Graph API v27.0), Microsoft (identity platform v2.0,
 * Advertising REST v13) and Mixpanel (service accounts per data residency), one module each, sharing
 * one store of logins. Each part answers in the platform's wire format and error shapes and refuses
 * what the platform refuses: an unregistered redirect URI, a wrong client secret, a code used twice or
 * sent with another redirect URI, a revoked or expired token, a Google Ads client queried without its
 * manager as login-customer-id.
 *
 * A person clicks through its consent pages ('Allow' / 'Cancel'); `npm run dev` and the e2e tests
 * start it. /__sandbox shows what it holds and revokes a platform's logins, as a user removing
 * access in their account settings would.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createBigQuery, type SandboxBigQuery } from '@/sandbox/bigquery';
import { page } from '@/sandbox/consent';
import { createGoogle, GOOGLE, GOOGLE_CLIENT, googleEnv } from '@/sandbox/google';
import { createMeta, META, META_CLIENT, META_DEMO_TOKEN, metaEnv } from '@/sandbox/meta_ads';
import { createMicrosoft, MICROSOFT, MICROSOFT_CLIENT, MICROSOFT_DEVELOPER_TOKEN, microsoftEnv } from '@/sandbox/microsoft_ads';
import { createMixpanel, mixpanelEnv, SANDBOX_MIXPANEL, type SandboxMixpanelEvents } from '@/sandbox/mixpanel';
import { escapeHtml, json, readBody, serve } from '@/sandbox/server';
import type { AdDataWorld } from '@/sandbox/adData';
import type { ConversionLedger, ConversionPlatform } from '@/sandbox/conversions';
import { KNOWN_PEOPLE } from '@/sandbox/people';
import type { MatchLedger, MatchPlatform } from '@/sandbox/matching';
import { createStore, type Provider, type SandboxStore } from '@/sandbox/store';
import type { ReportingSwitches, SandboxReporting } from '@/sandbox/reporting';

export { META_DEMO_TOKEN, SANDBOX_MIXPANEL };

export interface FakePlatformsOptions {
  port?: number;
  /** The app's origin, or each origin it answers on; their OAuth return routes are the registered redirect URIs. */
  appUrl: string | readonly string[];
}

export interface FakePlatforms {
  url: string;
  /** Kills every person's login to a provider (the user removed the app's access); a service account's tokens too, when asked. */
  revokeAll: (provider: Provider, options?: { serviceAccounts?: boolean }) => void;
  /** Ends every access token of a provider handed out so far, its logins still good (a token ended early or expired mid-job). */
  expireAccessTokens: (provider: Provider) => void;
  /** A service-account JSON key the fake Google accepts, for BigQuery. */
  serviceAccountKey: string;
  /** Token refreshes (refresh grants, service-account assertions) per login, counted by the fakes. */
  refreshes: SandboxStore['refreshes'];
  /** Conversions received by Meta, Google, Microsoft and Mixpanel (deduplicated), and their failure switches. */
  conversions: ConversionLedger;
  /** What Meta, Google and Microsoft matched of the hashed identifiers they received, each by its own rules (sandbox/matching.ts). */
  matches: MatchLedger;
  /** The ad performance every account reports: its shape, restatements and failure switches. */
  adData: AdDataWorld;
  /** What each ad platform reports it received and attributed of the conversions, and its imperfections' switches. */
  reporting: SandboxReporting;
  /** What the fake BigQuery holds: tables' metadata and rows (decoded), the queries it ran. */
  bigquery: SandboxBigQuery;
  /** What each Mixpanel project holds: imported events, deduplicated as Mixpanel shows them (`Ad Data` included). */
  mixpanel: SandboxMixpanelEvents;
  close: () => Promise<void>;
}

export const SANDBOX_CLIENTS = {
  google: GOOGLE_CLIENT,
  meta: META_CLIENT,
  microsoft: MICROSOFT_CLIENT,
  microsoftDeveloperToken: MICROSOFT_DEVELOPER_TOKEN,
};

/** A key for local credentials only (npm run dev, tests); production sets its own secret. */
const SANDBOX_CREDENTIALS_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * The origins `npm run dev` registers: the configured APP_URL (e.g. http://127.0.0.1:3000) as well as
 * http://localhost:PORT, so a consent comes back to whichever of them the app was opened on.
 */
export function appOrigins(port: number, configured: string | undefined): string[] {
  return [...new Set([configured, `http://localhost:${port}`].filter((origin): origin is string => Boolean(origin)))];
}

/** The sandbox's index: credentials to paste, and buttons that revoke every login of a platform. */
function sandboxIndex(res: ServerResponse, store: SandboxStore) {
  page(
    res,
    200,
    'Platform sandbox',
    `<h1>Platform sandbox</h1><p class="muted">Fake Google, Meta, Microsoft and Mixpanel for local development.</p>
<h2>Credentials to paste</h2><ul>
<li>Mixpanel: username <code>${SANDBOX_MIXPANEL.username}</code>, secret <code>${SANDBOX_MIXPANEL.secret}</code>, project ${SANDBOX_MIXPANEL.projects.US.id} (US), ${SANDBOX_MIXPANEL.projects.EU.id} (EU), ${SANDBOX_MIXPANEL.projects.IN.id} (IN)</li>
<li>Stripe restricted key: <code>rk_test_sandboxChargesRead</code></li>
<li>BigQuery service-account key: <a href="${store.base}/__sandbox/google/service-account-key.json">download</a></li></ul>
<h2>Break a login</h2><p>Revoking makes the app's next call fail, as when a user removes access in their account.</p>
${[GOOGLE, META, MICROSOFT]
  .map(
    (brand) =>
      `<form method="post" action="${store.base}/__sandbox/${brand.provider}/revoke"><button>Revoke every ${brand.name} login</button></form>`,
  )
  .join('<br>')}
<h2>Conversions received</h2><p><a href="${store.base}/__sandbox/conversions">What Meta, Google, Microsoft and Mixpanel received</a></p>
<h2>Counted by the platform</h2><p><a href="${store.base}/__sandbox/reporting">What each platform reports it received and attributed, and the switches of their imperfections</a></p>
<h2>Match quality</h2><p><a href="${store.base}/__sandbox/matches">Identifiers each platform matched to its ${KNOWN_PEOPLE.length} known people, by its own rules</a> (<a href="${store.base}/__sandbox/matches.json">JSON</a>)</p>
<h2>Destinations</h2><p><a href="${store.base}/__sandbox/destinations">Rows in each BigQuery table and Ad Data events in each Mixpanel project</a></p>`,
  );
}

const CONVERSION_PLATFORMS: readonly ConversionPlatform[] = ['meta', 'google', 'microsoft', 'mixpanel'];

/** Every conversion each platform received (the latest 200 of each), and switches that make one fail for a while. */
function conversionsPage(res: ServerResponse, store: SandboxStore) {
  const ledger = store.conversions;
  const section = (platform: ConversionPlatform) => {
    const rows = ledger.list(platform).slice(-200).reverse();
    const failure = ledger.failures.get(platform);
    return `<h2>${platform[0]!.toUpperCase()}${platform.slice(1)} — ${ledger.list(platform).length} received in ${ledger.calls(platform)} calls</h2>
<form method="post" action="${store.base}/__sandbox/${platform}/fail"><input type="hidden" name="seconds" value="60"><input type="hidden" name="status" value="500">
<button>Fail with 500 for a minute</button></form>${failure ? `<p class="muted">Failing with ${failure.status} until ${new Date(failure.until).toISOString()}</p>` : ''}
<table><tr><th>Dedup key</th><th>Target</th><th>Received</th><th>Times</th><th>Event</th></tr>${rows
      .map(
        (row) =>
          `<tr><td><code>${escapeHtml(row.key)}</code></td><td>${escapeHtml(row.target)}</td><td>${new Date(row.receivedAt).toISOString()}</td><td>${row.receipts}</td><td><code>${escapeHtml(JSON.stringify(row.event))}</code></td></tr>`,
      )
      .join('')}</table>`;
  };
  page(
    res,
    200,
    'Conversions received',
    `<h1>Conversions received</h1><p><a href="${store.base}/__sandbox">Sandbox</a></p>${CONVERSION_PLATFORMS.map(section).join('')}`,
  );
}

const MATCH_PLATFORMS: ReadonlyArray<{ platform: MatchPlatform; label: string; target: string }> = [
  { platform: 'meta', label: 'Meta', target: 'Pixel' },
  { platform: 'google', label: 'Google (Data Manager)', target: 'Conversion action' },
  { platform: 'microsoft', label: 'Microsoft', target: 'Goal' },
];

/**
 * Matched and unmatched events per pixel, conversion action and goal, and per identifier: an
 * identifier that matches nobody was hashed in another platform's form (or belongs to a stranger).
 */
function matchesPage(res: ServerResponse, store: SandboxStore) {
  const section = ({ platform, label, target }: (typeof MATCH_PLATFORMS)[number]) => {
    const targets = [...new Set(store.matches.list({ platform }).map((entry) => entry.target))].sort();
    const rows = targets.map((name) => {
      const total = store.matches.total(platform, name);
      const keys = Object.entries(total.keys)
        .map(([key, counts]) => `${escapeHtml(key)} ${counts.matched}/${counts.sent}`)
        .join(', ');
      return `<tr><td><code>${escapeHtml(name)}</code></td><td>${total.events}</td><td>${total.matched}</td><td>${total.unmatched}</td><td>${total.withoutIdentifiers}</td><td>${keys}</td></tr>`;
    });
    return `<h2>${label}</h2>${
      rows.length
        ? `<table><tr><th>${target}</th><th>Events</th><th>Matched</th><th>Unmatched</th><th>No identifier</th><th>Identifiers matched / sent</th></tr>${rows.join('')}</table>`
        : '<p class="muted">Nothing received yet.</p>'
    }`;
  };
  page(
    res,
    200,
    'Match quality',
    `<h1>Match quality</h1><p><a href="${store.base}/__sandbox">Sandbox</a></p>
<p class="muted">Each platform knows ${KNOWN_PEOPLE.length} people (sandbox/people.ts) and hashes each of them in the form it documents (docs/SANDBOX.md). An event matches when every hashed identifier it carries is one of theirs.</p>
${MATCH_PLATFORMS.map(section).join('')}
<form method="post" action="${store.base}/__sandbox/matches/reset"><button>Reset the counts</button></form>`,
  );
}

/** What the ad-data sync wrote: each BigQuery table's latest 200 rows, each Mixpanel project's latest 200 Ad Data events. */
function destinationsPage(res: ServerResponse, store: SandboxStore, sections: { bigquery: () => string; mixpanel: () => string }) {
  page(
    res,
    200,
    'Destinations',
    `<h1>Destinations</h1><p><a href="${store.base}/__sandbox">Sandbox</a></p>
<h2>BigQuery</h2><p class="muted">Dataset <code>acme-analytics.shared_reports</code> is shared read-only: writes to it are refused.</p>${sections.bigquery()}
<h2>Mixpanel</h2>${sections.mixpanel()}`,
  );
}

/** The reporting imperfections (sandbox/reporting.ts): what each platform is set to, with a form that changes them. */
function reportingPage(res: ServerResponse, store: SandboxStore) {
  const { microsoft, google, meta } = store.reporting.switches;
  const field = (name: string, label: string, value: number, step: string) =>
    `<label>${label} <input name="${name}" type="number" min="0" step="${step}" value="${value}"></label><br>`;
  page(
    res,
    200,
    'Counted by the platform',
    `<h1>Counted by the platform</h1><p><a href="${store.base}/__sandbox">Sandbox</a></p>
<p class="muted">What Meta's pixel stats and insights, Google's conversions by conversion date and Microsoft's goals report answer about the conversions each received (docs/SANDBOX.md). Each conversion is dated by the UTC day it arrived.</p>
<form method="post" action="${store.base}/__sandbox/reporting">
<h2>Microsoft</h2>${field('microsoft.dropShare', 'Share of accepted offline conversions silently dropped (0–1)', microsoft.dropShare, '0.01')}${field('microsoft.lagHours', 'Hours after upload until a conversion is recorded', microsoft.lagHours, '0.1')}
<h2>Google</h2><label><input type="checkbox" name="google.unmatchedUnattributed" value="true" ${google.unmatchedUnattributed ? 'checked' : ''}> Leave uploads that matched no click or customer unattributed</label><input type="hidden" name="google.unmatchedUnattributed" value="false">
<h2>Meta</h2>${field('meta.attributionLagHours', 'Hours until insights attribute a received event', meta.attributionLagHours, '0.1')}${field('meta.missingShare', 'Share of accepted events that never reach the pixel stats (0–1)', meta.missingShare, '0.01')}${field('meta.browserFires', "Browser-pixel fires per event we sent (the site's own pixel)", meta.browserFires, '0.1')}
<p><button>Save</button></p></form>
<form method="post" action="${store.base}/__sandbox/reporting/reset"><button>Back to the defaults</button></form>`,
  );
}

/** Switches from a JSON body (`{ microsoft: { dropShare } }`) or a form (`microsoft.dropShare=0.2`). */
async function switchesOf(req: IncomingMessage): Promise<{ [P in keyof ReportingSwitches]?: Partial<ReportingSwitches[P]> }> {
  const raw = await readBody(req);
  if ((req.headers['content-type'] ?? '').includes('json')) return JSON.parse(raw || '{}');
  const changes: Record<string, Record<string, number | boolean>> = {};
  // A checkbox sends its value before the hidden "false" beside it: the first value of a name wins.
  for (const [name, value] of new URLSearchParams(raw)) {
    const [platform, key] = name.split('.');
    if (!platform || !key || !['microsoft', 'google', 'meta'].includes(platform)) continue;
    const group = (changes[platform] ??= {});
    if (key in group) continue;
    group[key] = value === 'true' ? true : value === 'false' ? false : Number(value);
  }
  return changes;
}

/** Reads `seconds`, `status` and `rate` from a JSON or form body. */
async function failureOf(req: IncomingMessage) {
  const raw = await readBody(req);
  const fields: Record<string, unknown> = (req.headers['content-type'] ?? '').includes('json')
    ? JSON.parse(raw || '{}')
    : Object.fromEntries(new URLSearchParams(raw));
  const number = (value: unknown) => (value === undefined || value === '' ? undefined : Number(value));
  const status = number(fields.status);
  return { seconds: number(fields.seconds), rate: number(fields.rate), status: status === 429 ? 429 : status === 503 ? 503 : 500 } as const;
}

export async function startFakePlatforms(options: FakePlatformsOptions): Promise<FakePlatforms> {
  const store = createStore(typeof options.appUrl === 'string' ? [options.appUrl] : options.appUrl);
  const google = createGoogle(store);
  const bigquery = createBigQuery(store);
  const mixpanel = createMixpanel(store);
  const platforms = [google, bigquery, createMeta(store), createMicrosoft(store), mixpanel];

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    const path = url.pathname;
    if (path === '/' || path === '/__sandbox') return sandboxIndex(res, store);
    const revoke = /^\/__sandbox\/(google|meta|microsoft)\/revoke$/.exec(path);
    if (revoke && req.method === 'POST') {
      store.revokeAll(revoke[1] as Provider);
      return req.headers.accept?.includes('text/html') ? sandboxIndex(res, store) : json(res, 200, { revoked: revoke[1] });
    }
    if (path === '/__sandbox/conversions') return conversionsPage(res, store);
    if (path === '/__sandbox/matches') return matchesPage(res, store);
    if (path === '/__sandbox/matches.json') {
      const platform = url.searchParams.get('platform') as MatchPlatform | null;
      return json(res, 200, { matches: store.matches.list(platform ? { platform } : {}) });
    }
    if (path === '/__sandbox/matches/reset' && req.method === 'POST') {
      store.matches.reset();
      return req.headers.accept?.includes('text/html') ? matchesPage(res, store) : json(res, 200, { reset: true });
    }
    if (path === '/__sandbox/destinations') return destinationsPage(res, store, { bigquery: bigquery.page, mixpanel: mixpanel.page });
    if (path === '/__sandbox/conversions.json') {
      const platform = url.searchParams.get('platform') as ConversionPlatform | null;
      return json(res, 200, { received: store.conversions.list(platform ?? undefined) });
    }
    const fail = /^\/__sandbox\/(meta|google|microsoft|mixpanel)\/fail$/.exec(path);
    if (fail && req.method === 'POST') {
      store.conversions.fail(fail[1] as ConversionPlatform, await failureOf(req));
      return req.headers.accept?.includes('text/html') ? conversionsPage(res, store) : json(res, 200, { failing: fail[1] });
    }
    if (path === '/__sandbox/reporting' && req.method === 'POST') {
      store.reporting.set(await switchesOf(req));
      return req.headers.accept?.includes('text/html') ? reportingPage(res, store) : json(res, 200, { switches: store.reporting.switches });
    }
    if (path === '/__sandbox/reporting/reset' && req.method === 'POST') {
      store.reporting.reset();
      return req.headers.accept?.includes('text/html') ? reportingPage(res, store) : json(res, 200, { switches: store.reporting.switches });
    }
    // Test-only: the reports' "now" (sandbox/reporting.ts), `{ "at": "2026-11-15T07:00:00Z" }` or `{ "at": null }`.
    if (path === '/__sandbox/clock' && req.method === 'POST') {
      let at: unknown = null;
      try {
        at = (JSON.parse((await readBody(req)) || '{}') as { at?: unknown }).at ?? null;
      } catch {
        return json(res, 400, { error: 'The body must be JSON: { "at": an ISO time or null }.' });
      }
      if (at !== null && (typeof at !== 'string' || Number.isNaN(Date.parse(at))))
        return json(res, 400, { error: '"at" must be an ISO time or null.' });
      const fixed = store.reporting.clock.set(at);
      return json(res, 200, { at: fixed === null ? null : new Date(fixed).toISOString() });
    }
    if (path === '/__sandbox/reporting') return reportingPage(res, store);
    if (path === '/__sandbox/reporting.json') return json(res, 200, { switches: store.reporting.switches });
    if (path === '/__sandbox/google/service-account-key.json') return json(res, 200, JSON.parse(google.serviceAccountKey()));
    const platform = platforms.find((candidate) => candidate.owns(path));
    if (platform) return platform.handle(req, res, url);
    return json(res, 404, { error: 'not_found' });
  };
  const served = await serve('fake platforms', route, { port: options.port });
  store.base = served.url;
  return {
    url: store.base,
    revokeAll: store.revokeAll,
    expireAccessTokens: store.expireAccessTokens,
    refreshes: store.refreshes,
    conversions: store.conversions,
    matches: store.matches,
    adData: store.adData,
    reporting: store.reporting,
    bigquery: bigquery.data,
    mixpanel: mixpanel.events,
    get serviceAccountKey() {
      return google.serviceAccountKey();
    },
    close: served.close,
  };
}

/**
 * What a person does on a sandbox consent page, without a browser (API tests, the bench): open it,
 * press Allow (or Cancel), and return where the redirect goes (the app's return route with code and state).
 */
export async function consentTo(authorizeUrl: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const html = await (await fetch(authorizeUrl)).text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`No consent form: ${html.slice(0, 300)}`);
  const unescape = (value: string) =>
    value
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const fields = new URLSearchParams(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [match[1]!, unescape(match[2]!)]),
  );
  fields.set('decision', decision);
  const response = await fetch(action, {
    method: 'POST',
    body: fields,
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  return new URL(response.headers.get('location')!);
}

/** What the app's return page posts to `oauth/complete` for the place a consent returned to. */
export const completionOf = (returned: URL) => ({
  state: returned.searchParams.get('state'),
  code: returned.searchParams.get('code'),
  returnPath: returned.pathname,
});

/** The environment that points the app at this sandbox. */
export function platformsEnv(fake: FakePlatforms): Record<string, string> {
  return {
    ...googleEnv(fake.url),
    ...metaEnv(fake.url),
    ...microsoftEnv(fake.url),
    ...mixpanelEnv(fake.url),
    NEXT_PUBLIC_PLATFORM_SANDBOX_URL: `${fake.url}/__sandbox`,
    // Credentials sealed locally use a fixed key; production sets its own secret.
    CREDENTIALS_ENCRYPTION_KEY: SANDBOX_CREDENTIALS_KEY,
  };
}
