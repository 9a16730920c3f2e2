import { tiktokConfig } from '@/lib/server/connectors/tiktok_ads/config';
import { tiktokAdsError } from '@/lib/server/connectors/tiktok_ads/errors';
import { requestJson } from '@/lib/server/connectors/http';

/**
 * One call of TikTok's API for Business (the version in version.ts): the `Access-Token` header (never
 * `Authorization`), JSON arrays as query values, and an answer that is a refusal whenever its `code` is not 0,
 * even with HTTP 200. Answers TikTok's `data`.
 */

type Query = Record<string, string | number | readonly string[] | undefined>;

/** A query value as TikTok takes it: lists as JSON arrays (`dimensions=["campaign_id"]`). */
const queryOf = (query: Query) =>
  new URLSearchParams(
    Object.entries(query).flatMap(([key, value]) =>
      value === undefined ? [] : [[key, Array.isArray(value) ? JSON.stringify(value) : String(value)]],
    ),
  ).toString();

async function call(method: 'GET' | 'POST', path: string, accessToken: string | null, query: Query, body?: unknown) {
  const url = `${tiktokConfig().apiUrl}${path}${Object.keys(query).length ? `?${queryOf(query)}` : ''}`;
  const headers: Record<string, string> = { ...(accessToken ? { 'Access-Token': accessToken } : {}) };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const answer = await requestJson('tiktok_ads', url, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  if (answer.status !== 200 || answer.body.code !== 0) throw tiktokAdsError(answer.status, answer.body);
  return { data: (answer.body.data ?? {}) as Record<string, unknown>, body: answer.body };
}

export const tiktokGet = (path: string, accessToken: string | null, query: Query = {}) => call('GET', path, accessToken, query);
export const tiktokPost = (path: string, accessToken: string | null, body: unknown) => call('POST', path, accessToken, {}, body);
