/**
 * The sandbox's TikTok: the advertiser authorization (oauth.ts), the API for Business at the version we pin
 * (user, advertisers, pixels: accounts.ts), integrated reports (report.ts) and the Events API 2.0 (delivery.ts),
 * each answering HTTP 200 with TikTok's `code`, and the `Access-Token` header required on every call but the
 * token exchange. Accepted events' hashed email and phone are matched in TikTok's forms (matching.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decide } from '@/sandbox/consent';
import type { Fake } from '@/sandbox/fake';
import { routeTable, type RouteHandler } from '@/sandbox/routes';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';
import {
  advertiserInfo,
  callerOf,
  OPEN_API,
  pixelList,
  refuseToken,
  TIKTOK,
  TIKTOK_CLIENT,
  TIKTOK_DEMO_TOKEN,
  TIKTOK_HOST,
  tiktokAnswer,
  userInfo,
  type TikTokHandler,
} from '@/sandbox/tiktok_ads/accounts';
import { createEventsApi } from '@/sandbox/tiktok_ads/delivery';
import { createTikTokLogin } from '@/sandbox/tiktok_ads/oauth';
import { createReport } from '@/sandbox/tiktok_ads/report';

/** TikTok's part of the sandbox. */
export function createTikTok(store: SandboxStore): SandboxPlatform {
  // The demo organization's TikTok login: valid from the start, until revoked.
  store.accessTokens.set(TIKTOK_DEMO_TOKEN, {
    provider: 'tiktok',
    scope: 'Ad Account Management,Reporting,Pixel Management',
    offline: false,
    refreshToken: null,
    expiresAt: Number.MAX_SAFE_INTEGER,
  });
  const login = createTikTokLogin(store);
  const { integrated } = createReport(store);
  const { track } = createEventsApi(store);

  /** A call that needs a live token in `Access-Token`: 40104 without one, 40105 for a dead one. */
  const withCaller =
    (handler: TikTokHandler): RouteHandler =>
    (req, res, url, params) => {
      const caller = callerOf(store, req);
      return caller ? handler(req, res, url, params, caller) : refuseToken(req, res);
    };

  const handle = routeTable(
    [
      [`GET ${TIKTOK_HOST}/portal/auth`, login.authorize],
      ['POST /tiktok/consent', (req, res) => decide(req, res, store, TIKTOK)],
      [`POST ${OPEN_API}/oauth2/access_token/`, login.accessToken],
      [`GET ${OPEN_API}/oauth2/advertiser/get/`, withCaller(login.advertisers)],
      [`GET ${OPEN_API}/user/info/`, withCaller(userInfo)],
      [`GET ${OPEN_API}/advertiser/info/`, withCaller(advertiserInfo)],
      [`GET ${OPEN_API}/pixel/list/`, withCaller(pixelList)],
      [`GET ${OPEN_API}/report/integrated/get/`, withCaller(integrated)],
      [`POST ${OPEN_API}/event/track/`, track],
    ],
    // Any other path: TikTok's not-found answer (HTTP 404 from its gateway), after the token check.
    (req: IncomingMessage, res: ServerResponse) => (callerOf(store, req) ? tiktokAnswer(res, 40400, 'Not found.') : refuseToken(req, res)),
  );

  return { owns: (path) => path.startsWith(`${TIKTOK_HOST}/`), handle };
}

/** The environment that points the app's TikTok client at the sandbox at `url`. */
export function tiktokEnv(url: string): Record<string, string> {
  return {
    TIKTOK_APP_ID: TIKTOK_CLIENT.id,
    TIKTOK_APP_SECRET: TIKTOK_CLIENT.secret,
    TIKTOK_BUSINESS_API_URL: `${url}${TIKTOK_HOST}`,
  };
}

/** TikTok in the list of fakes (sandbox/fakes.ts): an OAuth provider that receives conversions and matches their identifiers. */
export const TIKTOK_ADS_FAKE = {
  slug: 'tiktok_ads',
  create: createTikTok,
  env: tiktokEnv,
  clients: { tiktok: TIKTOK_CLIENT },
  brand: TIKTOK,
  conversions: 'tiktok',
  matches: { platform: 'tiktok', label: 'TikTok', target: 'Pixel' },
} as const satisfies Fake;
