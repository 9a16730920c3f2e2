/**
 * The sandbox's TikTok world and its API for Business basics: the version we pin, the app, the marketer, their
 * advertisers and pixels (`GET /oauth2/advertiser/get/`, `/advertiser/info/`, `/pixel/list/`, `/user/info/`), the
 * demo login, and TikTok's answer shape: HTTP 200 with `{ code, message, request_id, data }`, `code` 0 for success.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TIKTOK_ADS_VERSION } from '@/lib/server/connectors/tiktok_ads/version';
import type { SandboxAdAccount } from '@/sandbox/adData';
import type { Brand } from '@/sandbox/consent';
import type { RouteParams } from '@/sandbox/routes';
import { json } from '@/sandbox/server';
import { token, type AccessToken, type SandboxStore } from '@/sandbox/store';

/** Where TikTok's host answers in the sandbox, and its API at the version the app pins. */
export const TIKTOK_HOST = '/tiktok';
export const OPEN_API = `${TIKTOK_HOST}/open_api/${TIKTOK_ADS_VERSION.version}`;

/** A long-term TikTok login the sandbox knows from the start (the demo organization's). */
export const TIKTOK_DEMO_TOKEN = 'act.sandboxDemoTikTokLongTermToken';

/** The app registered with the fake TikTok (tiktokEnv and SANDBOX_CLIENTS carry it). */
export const TIKTOK_CLIENT = { id: '7300000000000000001', secret: 'sandbox-tiktok-secret' };

/** The marketer every sandbox login is, and the advertisers that login reaches. */
export const TIKTOK_USER = { core_user_id: '7200000000000000001', display_name: 'Sandbox Marketer', email: 'marketer@example.com' };
export const TIKTOK_ADVERTISERS = [
  {
    advertiser_id: '7100000000000000001',
    advertiser_name: 'Acme Shoes (TikTok)',
    currency: 'USD',
    timezone: 'Etc/GMT+8',
    display_timezone: 'America/Los_Angeles',
  },
  {
    advertiser_id: '7100000000000000002',
    advertiser_name: 'Acme Outlet (TikTok)',
    currency: 'EUR',
    timezone: 'Etc/GMT-1',
    display_timezone: 'Europe/Berlin',
  },
];

/** Each advertiser's pixels: the pixel code is the Events API's event_source_id. */
export const TIKTOK_PIXELS: Record<string, Array<{ pixel_id: string; pixel_code: string; pixel_name: string }>> = {
  '7100000000000000001': [{ pixel_id: '7000000000000000011', pixel_code: 'CSBXSHOES0PIXEL00001', pixel_name: 'Acme Shoes Pixel' }],
  '7100000000000000002': [{ pixel_id: '7000000000000000022', pixel_code: 'CSBXOUTLET0PIXEL0002', pixel_name: 'Acme Outlet Pixel' }],
};

/** A sandbox advertiser as sandbox/adData.ts knows it, for the report and for tests that compute expected figures. */
export function tiktokSandboxAccount(advertiserId: string): SandboxAdAccount | null {
  const advertiser = TIKTOK_ADVERTISERS.find((candidate) => candidate.advertiser_id === advertiserId);
  return advertiser
    ? {
        id: advertiser.advertiser_id,
        name: advertiser.advertiser_name,
        currency: advertiser.currency,
        timeZone: advertiser.display_timezone,
      }
    : null;
}

/** How TikTok looks on its consent and error pages. */
export const TIKTOK: Brand = { provider: 'tiktok', name: 'TikTok For Business', color: '#fe2c55', account: TIKTOK_USER.display_name };

/** TikTok's answer: HTTP 200 whatever happened, the outcome in `code` (0: OK). */
export const tiktokAnswer = (res: ServerResponse, code: number, message: string, data: unknown = {}) =>
  json(res, 200, { code, message, request_id: token('2026'), data });
export const ok = (res: ServerResponse, data: unknown) => tiktokAnswer(res, 0, 'OK', data);
/** 40002: a parameter TikTok refuses (its message names it). */
export const parameterError = (res: ServerResponse, message: string) => tiktokAnswer(res, 40002, message);

/** The login of the request's `Access-Token` header (never `Authorization`), or null. */
export function callerOf(store: SandboxStore, req: IncomingMessage): AccessToken | null {
  const header = req.headers['access-token'];
  const found = store.accessTokens.get(typeof header === 'string' ? header : '');
  if (!found || found.provider !== 'tiktok' || found.expiresAt < Date.now()) return null;
  return found;
}

/** No token (40104), or one TikTok does not know or the advertiser revoked (40105). */
export const refuseToken = (req: IncomingMessage, res: ServerResponse) =>
  req.headers['access-token']
    ? tiktokAnswer(res, 40105, 'The access token is invalid or has been revoked.')
    : tiktokAnswer(res, 40104, 'Access token is null, you should set it in http header.');

export type TikTokHandler = (req: IncomingMessage, res: ServerResponse, url: URL, params: RouteParams, caller: AccessToken) => unknown;

/** A JSON array in a query parameter, as TikTok takes lists (`advertiser_ids=["1","2"]`); null when absent or not one. */
export function listParam(url: URL, name: string): string[] | null {
  const raw = url.searchParams.get(name);
  if (raw === null) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.map(String) : null;
  } catch {
    return null;
  }
}

export const isAdvertiser = (id: string | null) => TIKTOK_ADVERTISERS.some((advertiser) => advertiser.advertiser_id === id);
export const noPermission = (res: ServerResponse, id: string) =>
  tiktokAnswer(res, 40001, `No permission to operate advertiser ${id}. Please check whether the advertiser authorized your app.`);

/** `GET /user/info/`: the marketer behind the token. */
export const userInfo: TikTokHandler = (_req, res) => ok(res, TIKTOK_USER);

/** `GET /advertiser/info/`: name, currency and time zone of up to 100 advertisers the login reaches. */
export const advertiserInfo: TikTokHandler = (_req, res, url) => {
  const ids = listParam(url, 'advertiser_ids');
  if (!ids || ids.length === 0) return parameterError(res, 'advertiser_ids: Missing data for required field.');
  if (ids.length > 100) return parameterError(res, 'advertiser_ids: Length must be between 1 and 100.');
  const unknown = ids.find((id) => !isAdvertiser(id));
  if (unknown) return noPermission(res, unknown);
  const fields = listParam(url, 'fields');
  const list = ids.map((id) => {
    const advertiser = TIKTOK_ADVERTISERS.find((candidate) => candidate.advertiser_id === id)!;
    const info: Record<string, unknown> = {
      advertiser_id: id,
      name: advertiser.advertiser_name,
      currency: advertiser.currency,
      timezone: advertiser.timezone,
      display_timezone: advertiser.display_timezone,
    };
    return fields ? Object.fromEntries(Object.entries(info).filter(([key]) => key === 'advertiser_id' || fields.includes(key))) : info;
  });
  return ok(res, { list });
};

/** `GET /pixel/list/`: an advertiser's pixels, paged (page_size ≤ 20). */
export const pixelList: TikTokHandler = (_req, res, url) => {
  const advertiserId = url.searchParams.get('advertiser_id');
  if (!advertiserId) return parameterError(res, 'advertiser_id: Missing data for required field.');
  if (!isAdvertiser(advertiserId)) return noPermission(res, advertiserId);
  const page = Number(url.searchParams.get('page') ?? 1);
  const pageSize = Number(url.searchParams.get('page_size') ?? 20);
  if (!Number.isInteger(page) || page < 1) return parameterError(res, 'page: Must be greater than or equal to 1.');
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 20) return parameterError(res, 'page_size: Must be between 1 and 20.');
  const pixels = TIKTOK_PIXELS[advertiserId] ?? [];
  return ok(res, {
    pixels: pixels.slice((page - 1) * pageSize, page * pageSize),
    page_info: { page, page_size: pageSize, total_number: pixels.length, total_page: Math.max(1, Math.ceil(pixels.length / pageSize)) },
  });
};

/** The advertiser whose pixel this code is, or null. */
export const ownerOfPixel = (pixelCode: string) =>
  Object.entries(TIKTOK_PIXELS).find(([, pixels]) => pixels.some((pixel) => pixel.pixel_code === pixelCode))?.[0] ?? null;
