import { tiktokGet, tiktokPost } from '@/lib/server/connectors/tiktok_ads/api';
import { tiktokConfig } from '@/lib/server/connectors/tiktok_ads/config';
import { tiktokCounted } from '@/lib/server/connectors/tiktok_ads/counted';
import { tiktokDelivery } from '@/lib/server/connectors/tiktok_ads/delivery';
import { tiktokReport } from '@/lib/server/connectors/tiktok_ads/report';
import type { Connector } from '@/lib/server/connectors/types';

/**
 * TikTok API for Business (the version in version.ts): its advertiser authorization (an auth code traded for a
 * long-term access token), the advertisers and pixels a login reaches, integrated reports (ad performance, and what it attributed: counted.ts), Events API 2.0.
 * Every call carries the token in the `Access-Token` header (api.ts).
 */

/** A long-term access token: TikTok's advertiser tokens do not expire until the advertiser revokes them. */
export interface TikTokCredential {
  type: 'tiktok';
  accessToken: string;
}

/** TikTok's largest advertiser_ids list per `advertiser/info` call, and pixel page. */
const INFO_BATCH = 100;
const PIXEL_PAGE_SIZE = 20;

export const tiktokAds: Connector<TikTokCredential> = {
  id: 'tiktok_ads',
  auth: {
    oauth: {
      scopes: () => tiktokConfig().scopes,
      // TikTok's advertiser authorization page: the app and return address; the permissions are the app's own.
      authorizeUrl(state, redirectUri) {
        const config = tiktokConfig();
        const url = new URL(config.authUrl);
        url.search = new URLSearchParams({ app_id: config.appId, state, redirect_uri: redirectUri }).toString();
        return url.toString();
      },
      // The auth code (valid 10 minutes, once) for a long-term token; the JSON body names app_id, secret and auth_code.
      async exchangeCode(code) {
        const config = tiktokConfig();
        const { data } = await tiktokPost('/oauth2/access_token/', null, {
          app_id: config.appId,
          secret: config.appSecret,
          auth_code: code,
        });
        const credential: TikTokCredential = { type: 'tiktok', accessToken: String(data.access_token ?? '') };
        const { data: user } = await tiktokGet('/user/info/', credential.accessToken);
        return { credential, accountName: String(user.display_name || user.email || 'TikTok account') };
      },
    },
  },
  // Nothing to refresh: a revoked token is refused by the next call (40105 → needs_reauth).
  async openSession(credential) {
    return { accessToken: credential.accessToken, rotated: null };
  },
  async listAccounts(session) {
    const config = tiktokConfig();
    const { data } = await tiktokGet('/oauth2/advertiser/get/', session.accessToken, { app_id: config.appId, secret: config.appSecret });
    const advertisers = (data.list as Array<{ advertiser_id: string; advertiser_name?: string }> | undefined) ?? [];
    const currencies = new Map<string, string>();
    for (let at = 0; at < advertisers.length; at += INFO_BATCH) {
      const ids = advertisers.slice(at, at + INFO_BATCH).map((advertiser) => String(advertiser.advertiser_id));
      const { data: info } = await tiktokGet('/advertiser/info/', session.accessToken, {
        advertiser_ids: ids,
        fields: ['advertiser_id', 'currency'],
      });
      for (const row of (info.list as Array<{ advertiser_id: string; currency?: string }> | undefined) ?? [])
        if (row.currency) currencies.set(String(row.advertiser_id), row.currency);
    }
    return advertisers.map((advertiser) => ({
      id: String(advertiser.advertiser_id),
      name: advertiser.advertiser_name ?? String(advertiser.advertiser_id),
      currency: currencies.get(String(advertiser.advertiser_id)) ?? null,
    }));
  },
  // The advertiser's pixels; a conversion goes to one by its pixel code (the Events API's event_source_id).
  async listTargets(session, account) {
    const targets: Array<{ id: string; name: string }> = [];
    for (let page = 1; page <= 50; page++) {
      const { data } = await tiktokGet('/pixel/list/', session.accessToken, {
        advertiser_id: account.id,
        page,
        page_size: PIXEL_PAGE_SIZE,
      });
      const pixels = (data.pixels as Array<{ pixel_code: string; pixel_name?: string }> | undefined) ?? [];
      targets.push(...pixels.map((pixel) => ({ id: pixel.pixel_code, name: pixel.pixel_name ?? pixel.pixel_code })));
      const info = (data.page_info ?? {}) as { total_page?: number };
      if (page >= Number(info.total_page ?? 1)) break;
    }
    return targets;
  },
  report: tiktokReport,
  counted: tiktokCounted,
  deliver: tiktokDelivery,
};
