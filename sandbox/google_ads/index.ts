/**
 * The sandbox's Google Ads: the Google Ads API at the pinned version (accessible customers, a manager with
 * two clients, conversion actions: sandbox/google_ads/accounts.ts; a client is refused without its manager
 * as login-customer-id; ad performance through googleAds:searchStream, its GAQL checked as Google checks it
 * and its figures from sandbox/adData.ts: report.ts; conversions by conversion date: counted.ts) and the
 * Data Manager API (events:ingest: delivery.ts; requestStatus:retrieve: diagnostics.ts). Its logins are
 * Google's (sandbox/google/).
 */
import { DATA_MANAGER_VERSION } from '@/lib/server/connectors/google_ads/version';
import type { Fake } from '@/sandbox/fake';
import { ADS_VERSION, adsCall, dataManagerWorld, googleAdsSearch, listAccessibleCustomers } from '@/sandbox/google_ads/accounts';
import { ingestEvents } from '@/sandbox/google_ads/delivery';
import { retrieveRequestStatus } from '@/sandbox/google_ads/diagnostics';
import { createSearchStream } from '@/sandbox/google_ads/report';
import { routeTable } from '@/sandbox/routes';
import { json } from '@/sandbox/server';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

/** Google Ads' part of the sandbox. */
export function createGoogleAds(store: SandboxStore): SandboxPlatform {
  const ADS = `/googleads/${ADS_VERSION}`;
  const DATA_MANAGER = `/datamanager/${DATA_MANAGER_VERSION.version}`;
  const handle = routeTable(
    [
      [`POST ${DATA_MANAGER}/events:ingest`, (req, res, url) => ingestEvents(req, res, url, store, dataManagerWorld)],
      [`GET ${DATA_MANAGER}/requestStatus:retrieve`, (req, res, url) => retrieveRequestStatus(req, res, url, store)],
      [`GET ${ADS}/customers:listAccessibleCustomers`, adsCall(store, (_req, res) => listAccessibleCustomers(res))],
      [`POST ${ADS}/customers/:customer(\\d+)/googleAds:search`, adsCall(store, googleAdsSearch)],
      [`POST ${ADS}/customers/:customer(\\d+)/googleAds:searchStream`, adsCall(store, createSearchStream(store))],
    ],
    (_req, res, url) => json(res, 404, { error: { code: 404, message: `Not found: ${url.pathname}`, status: 'NOT_FOUND' } }),
  );
  return { owns: (path) => path.startsWith('/googleads/') || path.startsWith('/datamanager/'), handle };
}

/** The environment that points the app's Google Ads and Data Manager clients at the sandbox at `url`. */
export function googleAdsEnv(url: string): Record<string, string> {
  return {
    GOOGLE_ADS_API_URL: `${url}/googleads`,
    GOOGLE_DATA_MANAGER_API_URL: `${url}/datamanager/${DATA_MANAGER_VERSION.version}`,
  };
}

/** Google Ads in the list of fakes (sandbox/fakes.ts): it receives conversions and matches their identifiers. */
export const GOOGLE_ADS_FAKE = {
  slug: 'google_ads',
  create: createGoogleAds,
  env: googleAdsEnv,
  conversions: 'google',
  matches: { platform: 'google', label: 'Google (Data Manager)', target: 'Conversion action' },
} as const satisfies Fake;
