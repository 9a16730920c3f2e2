/**
 * The local sandbox of the ad and analytics platforms: one server that plays Google (OAuth, Google
 * Ads API v26, BigQuery), Meta (Facebook Login, Graph API v27.0), Microsoft (identity platform v2.0,
 * Advertising REST v13) and Mixpanel (service accounts per data residency), each a folder
 * (sandbox/<platform>/) listed once in sandbox/fakes.ts, sharing one store of logins. Each part
 * answers in the platform's wire format and error shapes and refuses what the platform refuses: an
 * unregistered redirect URI, a wrong client secret, a code used twice or sent with another redirect
 * URI, a revoked or expired token, a Google Ads client queried without its manager as
 * login-customer-id.
 *
 * A person clicks through its consent pages ('Allow' / 'Cancel'); `npm run dev` and the e2e tests
 * start it. /__sandbox shows what it holds and revokes a platform's logins, as a user removing
 * access in their account settings would.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdDataWorld } from '@/sandbox/adData';
import type { SandboxBigQuery } from '@/sandbox/bigquery';
import type { ConversionLedger, ConversionPlatform } from '@/sandbox/conversions';
import { FAKES } from '@/sandbox/fakes';
import type { MatchLedger, MatchPlatform } from '@/sandbox/matching';
import { META_DEMO_TOKEN } from '@/sandbox/meta_ads/accounts';
import { SANDBOX_MIXPANEL, type SandboxMixpanelEvents } from '@/sandbox/mixpanel/projects';
import { BRANDS, CONVERSION_PLATFORMS, conversionsPage, destinationsPage, matchesPage, reportingPage, sandboxIndex } from '@/sandbox/pages';
import { isReportingPlatform, type ReportingSwitches, type SandboxReporting } from '@/sandbox/reporting';
import { json, readBody, serve } from '@/sandbox/server';
import { createStore, type Provider, type SandboxStore } from '@/sandbox/store';

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

/** The app's credentials with each OAuth platform (and Microsoft's developer token), from each fake's `clients`. */
export const SANDBOX_CLIENTS = Object.assign({}, ...FAKES.map((fake) => ('clients' in fake ? fake.clients : {}))) as UnionToIntersection<
  Extract<(typeof FAKES)[number], { clients: unknown }>['clients']
>;

type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

/** Each fake as created on the store, by its slug. */
type Created = { [F in (typeof FAKES)[number] as F['slug']]: ReturnType<F['create']> };

/** A key for local credentials only (npm run dev, tests); production sets its own secret. */
const SANDBOX_CREDENTIALS_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * The origins `npm run dev` registers: the configured APP_URL (e.g. http://127.0.0.1:3000) as well as
 * http://localhost:PORT, so a consent comes back to whichever of them the app was opened on.
 */
export function appOrigins(port: number, configured: string | undefined): string[] {
  return [...new Set([configured, `http://localhost:${port}`].filter((origin): origin is string => Boolean(origin)))];
}

/** Switches from a JSON body (`{ microsoft: { dropShare } }`) or a form (`microsoft.dropShare=0.2`). */
async function switchesOf(req: IncomingMessage): Promise<{ [P in keyof ReportingSwitches]?: Partial<ReportingSwitches[P]> }> {
  const raw = await readBody(req);
  if ((req.headers['content-type'] ?? '').includes('json')) return JSON.parse(raw || '{}');
  const changes: Record<string, Record<string, number | boolean>> = {};
  // A checkbox sends its value before the hidden "false" beside it: the first value of a name wins.
  for (const [name, value] of new URLSearchParams(raw)) {
    const [platform, key] = name.split('.');
    if (!platform || !key || !isReportingPlatform(platform)) continue;
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
  const created = Object.fromEntries(FAKES.map((fake) => [fake.slug, fake.create(store)])) as Created;
  const platforms = Object.values(created);
  const revocable = new Set<string>(BRANDS.map((brand) => brand.provider));
  const failable = new Set<string>(CONVERSION_PLATFORMS);

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    const path = url.pathname;
    if (path === '/' || path === '/__sandbox') return sandboxIndex(res, store);
    const revoke = /^\/__sandbox\/([a-z_]+)\/revoke$/.exec(path);
    if (revoke && revocable.has(revoke[1]!) && req.method === 'POST') {
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
    if (path === '/__sandbox/destinations') return destinationsPage(res, store, platforms);
    if (path === '/__sandbox/conversions.json') {
      const platform = url.searchParams.get('platform') as ConversionPlatform | null;
      return json(res, 200, { received: store.conversions.list(platform ?? undefined) });
    }
    const fail = /^\/__sandbox\/([a-z_]+)\/fail$/.exec(path);
    if (fail && failable.has(fail[1]!) && req.method === 'POST') {
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
    bigquery: created.bigquery.data,
    mixpanel: created.mixpanel.events,
    get serviceAccountKey() {
      return created.google.serviceAccountKey();
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
    ...Object.assign({}, ...FAKES.map((platform) => platform.env(fake.url))),
    NEXT_PUBLIC_PLATFORM_SANDBOX_URL: `${fake.url}/__sandbox`,
    // Credentials sealed locally use a fixed key; production sets its own secret.
    CREDENTIALS_ENCRYPTION_KEY: SANDBOX_CREDENTIALS_KEY,
  };
}
