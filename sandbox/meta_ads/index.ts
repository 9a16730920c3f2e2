/**
 * The sandbox's Meta: Facebook Login (sandbox/meta_ads/oauth.ts), the Graph API at the version we pin (the
 * user, ad accounts, pixels: accounts.ts), the Insights API (sync pages and async report runs: report.ts,
 * with the `x-business-use-case-usage` header and its throttling: usage.ts), the Conversions API
 * (`POST /{pixel}/events`: delivery.ts), with Graph's error shapes. Accepted events' hashed contact
 * information is matched against the known people in Meta's forms (matching.ts), and the Dataset Quality
 * API (`GET /dataset_quality`: quality.ts) reports it per pixel and event name; the pixel stats and
 * attributed actions (counted.ts) report what Meta counted.
 */
import type { ServerResponse } from 'node:http';
import { decide } from '@/sandbox/consent';
import type { Fake } from '@/sandbox/fake';
import {
  adAccounts,
  adsPixels,
  metaAdsError,
  GRAPH,
  GRAPH_VERSION,
  invalidToken,
  META,
  META_CLIENT,
  META_DEMO_TOKEN,
  META_USER,
  picker,
  readsAds,
  type GraphHandler,
} from '@/sandbox/meta_ads/accounts';
import { createCounted } from '@/sandbox/meta_ads/counted';
import { createConversionsApi } from '@/sandbox/meta_ads/delivery';
import { createFacebookLogin } from '@/sandbox/meta_ads/oauth';
import { datasetQuality } from '@/sandbox/meta_ads/quality';
import { createInsights } from '@/sandbox/meta_ads/report';
import { routeTable, type RouteHandler } from '@/sandbox/routes';
import { json } from '@/sandbox/server';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

/** Meta's part of the sandbox. */
export function createMeta(store: SandboxStore): SandboxPlatform {
  const insights = createInsights(store);
  // The demo organization's Meta login (scripts/lib/seed.ts): valid from the start, until revoked.
  store.accessTokens.set(META_DEMO_TOKEN, {
    provider: 'meta',
    scope: 'ads_management,ads_read,business_management',
    offline: false,
    refreshToken: null,
    expiresAt: Number.MAX_SAFE_INTEGER,
  });
  const login = createFacebookLogin(store);
  const { events } = createConversionsApi(store);
  const { pixelStats, attributedActions } = createCounted(store, insights);

  /** A Graph read that needs a live token (in the Authorization header or `access_token`): 190 without one. */
  const withCaller =
    (handler: GraphHandler): RouteHandler =>
    (req, res, url, params) => {
      const caller = store.bearerToken(req, url, 'meta');
      return caller ? handler(req, res, url, params, caller) : invalidToken(store, res);
    };
  const unknownPath = (res: ServerResponse) => metaAdsError(res, 400, 2500, 'Unknown path components');

  /** `GET act_{id}/insights`: the attributed pixel actions with `fields=actions`, else the Insights API's sync page. */
  const accountInsights: GraphHandler = async (req, res, url, params, caller) => {
    if (url.searchParams.get('fields') === 'actions') {
      if (!readsAds(caller)) return metaAdsError(res, 403, 200, '(#200) Requires ads_read permission');
      return attributedActions(res, url, params.account!);
    }
    return insights.adAccount(req, res, url, params.account!, true, picker(url));
  };

  /** A report run's status or results (`GET {report_run_id}[/insights]`); an unknown run is an unknown path. */
  const reportRun =
    (results: boolean): GraphHandler =>
    (_req, res, url, params) =>
      insights.reportRun(res, url, params.run!, results) ? undefined : unknownPath(res);

  const handle = routeTable(
    [
      [`GET /meta/${GRAPH_VERSION}/dialog/oauth`, login.dialog],
      ['POST /meta/consent', (req, res) => decide(req, res, store, META)],
      [`DELETE ${GRAPH}/me/permissions`, login.removePermissions],
      [`POST ${GRAPH}/:pixel(\\d+)/events`, (req, res, url, params) => events(req, res, url, params.pixel!)],
      ['POST /__sandbox/meta/usage', (req, res) => insights.setUsage(req, res)],
      [
        `POST ${GRAPH}/act_:account(\\d+)/insights`,
        withCaller((req, res, url, params) => insights.adAccount(req, res, url, params.account!, true, (item) => item)),
      ],
      [`GET ${GRAPH}/oauth/access_token`, login.accessToken],
      [`GET ${GRAPH}/me`, withCaller((_req, res) => json(res, 200, META_USER))],
      [`GET ${GRAPH}/dataset_quality`, withCaller((_req, res, url) => datasetQuality(store, res, url))],
      [`GET ${GRAPH}/me/adaccounts`, withCaller(adAccounts)],
      [`GET ${GRAPH}/:pixel(\\d+)/stats`, withCaller((_req, res, url, params, caller) => pixelStats(res, url, caller, params.pixel!))],
      [`GET ${GRAPH}/act_:account(\\d+)/insights`, withCaller(accountInsights)],
      [
        `GET ${GRAPH}/act_:account(\\d+)`,
        withCaller((req, res, url, params) => insights.adAccount(req, res, url, params.account!, false, picker(url))),
      ],
      [`GET ${GRAPH}/:run(\\d+)`, withCaller(reportRun(false))],
      [`GET ${GRAPH}/:run(\\d+)/insights`, withCaller(reportRun(true))],
      [`GET ${GRAPH}/act_:account(\\d+)/adspixels`, withCaller(adsPixels)],
    ],
    // Graph refuses any other write as an unsupported post; any other read needs a live token first.
    (req, res, url) =>
      req.method !== 'GET'
        ? metaAdsError(res, 400, 100, 'Unsupported post request.')
        : store.bearerToken(req, url, 'meta')
          ? unknownPath(res)
          : invalidToken(store, res),
  );

  return {
    owns: (path) => path.startsWith('/meta/') || path === '/__sandbox/meta/usage',
    handle,
  };
}

/** The environment that points the app's Meta client at the sandbox at `url`. */
export function metaEnv(url: string): Record<string, string> {
  return {
    META_APP_ID: META_CLIENT.id,
    META_APP_SECRET: META_CLIENT.secret,
    META_OAUTH_DIALOG_URL: `${url}/meta/${GRAPH_VERSION}/dialog/oauth`,
    META_GRAPH_API_URL: `${url}${GRAPH}`,
  };
}

/** Meta in the list of fakes (sandbox/fakes.ts): an OAuth provider that receives conversions and matches their identifiers. */
export const META_ADS_FAKE = {
  slug: 'meta_ads',
  create: createMeta,
  env: metaEnv,
  clients: { meta: META_CLIENT },
  brand: META,
  conversions: 'meta',
  matches: { platform: 'meta', label: 'Meta', target: 'Pixel' },
} as const satisfies Fake;
