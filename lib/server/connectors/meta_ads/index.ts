import { metaCounted } from '@/lib/server/connectors/meta_ads/counted';
import { metaConfig } from '@/lib/server/connectors/meta_ads/config';
import { metaDelivery } from '@/lib/server/connectors/meta_ads/delivery';
import { metaAdsError } from '@/lib/server/connectors/meta_ads/errors';
import { readDatasetQuality } from '@/lib/server/connectors/meta_ads/quality';
import { metaReport } from '@/lib/server/connectors/meta_ads/report';
import { bearer, requestJson } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Connector } from '@/lib/server/connectors/types';

/** Facebook Login and the Graph API (the version in version.ts): long-lived user tokens, ad accounts, pixels, Insights, Conversions API. */

async function graph(path: string, params: Record<string, string>, accessToken?: string) {
  const url = new URL(`${metaConfig().graphUrl}${path}`);
  url.search = new URLSearchParams(params).toString();
  const { status, body } = await requestJson('meta_ads', url.toString(), accessToken ? { headers: bearer(accessToken) } : {});
  if (status !== 200) throw metaAdsError(status, body);
  return body;
}

/** A long-lived user token (≈ 60 days); it cannot be refreshed. */
export interface MetaCredential {
  type: 'meta';
  accessToken: string;
  expiresAt: number | null;
}

/** Code → short-lived token → long-lived token (≈ 60 days). */
async function exchangeCode(code: string, redirectUri: string): Promise<MetaCredential> {
  const config = metaConfig();
  const short = await graph('/oauth/access_token', {
    client_id: config.appId,
    client_secret: config.appSecret,
    redirect_uri: redirectUri,
    code,
  });
  const long = await graph('/oauth/access_token', {
    grant_type: 'fb_exchange_token',
    client_id: config.appId,
    client_secret: config.appSecret,
    fb_exchange_token: String(short.access_token),
  });
  const expiresIn = Number(long.expires_in);
  return {
    type: 'meta',
    accessToken: String(long.access_token),
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? Date.now() + expiresIn * 1000 : null,
  };
}

async function userName(accessToken: string): Promise<string> {
  const me = await graph('/me', { fields: 'id,name' }, accessToken);
  return String(me.name ?? 'Meta account');
}

async function allPages<T>(path: string, params: Record<string, string>, accessToken: string): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  for (let page = 0; page < 50; page++) {
    const body = await graph(path, { ...params, limit: '100', ...(after ? { after } : {}) }, accessToken);
    items.push(...((body.data as T[] | undefined) ?? []));
    const paging = body.paging as { next?: string; cursors?: { after?: string } } | undefined;
    after = paging?.next ? paging.cursors?.after : undefined;
    if (!after) break;
  }
  return items;
}

export const metaAds: Connector<MetaCredential> = {
  id: 'meta_ads',
  auth: {
    oauth: {
      scopes: () => metaConfig().scopes,
      authorizeUrl(state, redirectUri) {
        const config = metaConfig();
        const url = new URL(config.dialogUrl);
        url.search = new URLSearchParams({
          client_id: config.appId,
          redirect_uri: redirectUri,
          state,
          response_type: 'code',
          scope: config.scopes.join(','),
        }).toString();
        return url.toString();
      },
      async exchangeCode(code, redirectUri) {
        const credential = await exchangeCode(code, redirectUri);
        return { credential, accountName: await userName(credential.accessToken) };
      },
    },
  },
  // A long-lived token cannot be refreshed; past its expiry only a new login helps.
  async openSession(credential) {
    if (credential.expiresAt !== null && credential.expiresAt < Date.now()) {
      throw new PlatformError('meta_ads', 'needs_reauth', 'The Meta login expired (Meta logins last about 60 days).');
    }
    return { accessToken: credential.accessToken, rotated: null, expiresAt: credential.expiresAt ?? undefined };
  },
  async listAccounts(session) {
    const accounts = await allPages<{ id: string; account_id: string; name?: string; currency?: string }>(
      '/me/adaccounts',
      { fields: 'id,account_id,name,currency,account_status' },
      session.accessToken,
    );
    return accounts.map((account) => ({ id: account.account_id, name: account.name ?? account.id, currency: account.currency ?? null }));
  },
  async listTargets(session, account) {
    const pixels = await allPages<{ id: string; name?: string }>(
      `/act_${account.id}/adspixels`,
      { fields: 'id,name' },
      session.accessToken,
    );
    return pixels.map((pixel) => ({ id: pixel.id, name: pixel.name ?? pixel.id }));
  },
  report: metaReport,
  counted: metaCounted,
  countsReceived: true,
  quality: { needsLastRequest: false, read: (session, pixelId) => readDatasetQuality(session.accessToken, pixelId) },
  deliver: metaDelivery,
};
