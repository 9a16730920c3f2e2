import type { AdAccount, ConversionTarget } from '@/lib/integrations/platforms';
import { META_SCOPES, metaConfig } from '@/lib/server/platforms/config';
import { bearer, PlatformError, requestJson } from '@/lib/server/platforms/http';

/** Facebook Login and the Graph API (v25.0): long-lived user tokens, ad accounts, pixels. */

export function metaAuthorizeUrl(state: string, redirectUri: string): string {
  const config = metaConfig();
  const url = new URL(config.dialogUrl);
  url.search = new URLSearchParams({
    client_id: config.appId,
    redirect_uri: redirectUri,
    state,
    response_type: 'code',
    scope: META_SCOPES.join(','),
  }).toString();
  return url.toString();
}

interface GraphError {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
}

function graphError(status: number, body: Record<string, unknown>): PlatformError {
  const error = (body.error ?? {}) as GraphError;
  // 190: the token is invalid, expired or was invalidated (460 password changed, 463 expired).
  if (error.code === 190) return new PlatformError('meta_ads', 401, 'Meta no longer accepts this login: it expired or was invalidated.', true);
  if ([4, 17, 613, 80003].includes(error.code ?? 0)) {
    return new PlatformError('meta_ads', 429, 'Meta is rate limiting this account. Try again in a few minutes.');
  }
  console.error('[platforms] meta error', { status, code: error.code, subcode: error.error_subcode, message: error.message });
  return new PlatformError('meta_ads', status >= 500 ? 502 : 400, 'Meta refused the request. Try connecting again.');
}

async function graph(path: string, params: Record<string, string>, accessToken?: string) {
  const url = new URL(`${metaConfig().graphUrl}${path}`);
  url.search = new URLSearchParams(params).toString();
  const { status, body } = await requestJson('meta_ads', url.toString(), accessToken ? { headers: bearer(accessToken) } : {});
  if (status !== 200) throw graphError(status, body);
  return body;
}

export interface MetaToken {
  accessToken: string;
  expiresAt: number | null;
}

/** Code → short-lived token → long-lived token (≈ 60 days). */
export async function metaExchangeCode(code: string, redirectUri: string): Promise<MetaToken> {
  const config = metaConfig();
  const short = await graph('/oauth/access_token', { client_id: config.appId, client_secret: config.appSecret, redirect_uri: redirectUri, code });
  const long = await graph('/oauth/access_token', {
    grant_type: 'fb_exchange_token',
    client_id: config.appId,
    client_secret: config.appSecret,
    fb_exchange_token: String(short.access_token),
  });
  const expiresIn = Number(long.expires_in);
  return { accessToken: String(long.access_token), expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? Date.now() + expiresIn * 1000 : null };
}

export async function metaUserName(accessToken: string): Promise<string> {
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

export async function metaAdAccounts(accessToken: string): Promise<AdAccount[]> {
  const accounts = await allPages<{ id: string; account_id: string; name?: string; currency?: string }>(
    '/me/adaccounts',
    { fields: 'id,account_id,name,currency,account_status' },
    accessToken,
  );
  return accounts.map((account) => ({ id: account.account_id, name: account.name ?? account.id, currency: account.currency ?? null }));
}

export async function metaPixels(accessToken: string, account: AdAccount): Promise<ConversionTarget[]> {
  const pixels = await allPages<{ id: string; name?: string }>(`/act_${account.id}/adspixels`, { fields: 'id,name' }, accessToken);
  return pixels.map((pixel) => ({ id: pixel.id, name: pixel.name ?? pixel.id }));
}

/** A long-lived token cannot be refreshed; past its expiry only a new login helps. */
export function metaTokenUsable(token: MetaToken): string {
  if (token.expiresAt !== null && token.expiresAt < Date.now()) {
    throw new PlatformError('meta_ads', 401, 'The Meta login expired (Meta logins last about 60 days).', true);
  }
  return token.accessToken;
}
