import { googleAdsConfig } from '@/lib/server/connectors/google-ads/config';
import { reportError } from '@/lib/server/connectors/google-ads/report';
import { bearer } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { CountedRow, ReadCounted } from '@/lib/server/connectors/types';

/**
 * What Google Ads counted per conversion action and day (docs/PLATFORMS.md): one searchStream per
 * account, `metrics.all_conversions_by_conversion_date` segmented by `segments.conversion_action` and
 * `segments.date`, for every action of the account at once. Google reports no "received" count per
 * day for Data Manager uploads: only what it attributed.
 */

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function countedQuery(from: string, to: string): string {
  if (!DAY.test(from) || !DAY.test(to))
    throw new PlatformError('google_ads', 'invalid', `Report days must be YYYY-MM-DD, not ${from} – ${to}.`);
  return (
    'SELECT segments.conversion_action, segments.date, metrics.all_conversions_by_conversion_date ' +
    `FROM customer WHERE segments.date BETWEEN '${from}' AND '${to}'`
  );
}

interface CountedBatch {
  results?: Array<{ segments?: { conversionAction?: string; date?: string }; metrics?: { allConversionsByConversionDate?: number } }>;
}

/** The action id at the end of `customers/{cid}/conversionActions/{id}`. */
const actionIdOf = (resource: string | undefined) => /conversionActions\/(\d+)$/.exec(resource ?? '')?.[1] ?? null;

/** Rows of a searchStream answer (a JSON array of batches) for the wanted actions. */
export function countedRows(batches: CountedBatch[], wanted: ReadonlySet<string>): CountedRow[] {
  const rows: CountedRow[] = [];
  for (const batch of batches) {
    for (const result of batch.results ?? []) {
      const targetId = actionIdOf(result.segments?.conversionAction);
      const date = result.segments?.date;
      if (!targetId || !date || !wanted.has(targetId)) continue;
      rows.push({ targetId, events: null, date, received: null, attributed: Number(result.metrics?.allConversionsByConversionDate ?? 0) });
    }
  }
  return rows;
}

export const googleAdsCounted: ReadCounted = async (session, request) => {
  const { account } = request;
  if (account.isManager)
    throw new PlatformError(
      'google_ads',
      'invalid',
      `${account.name || account.id} is a manager account: it has no conversions of its own.`,
    );
  const config = googleAdsConfig();
  request.onCall?.();
  let response: Response;
  try {
    response = await fetch(`${config.apiUrl}/${config.version}/customers/${account.id}/googleAds:searchStream`, {
      method: 'POST',
      headers: { ...bearer(session.accessToken), 'Content-Type': 'application/json', 'login-customer-id': account.managerId ?? account.id },
      body: JSON.stringify({ query: countedQuery(request.from, request.to) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    console.error('[platforms] google_ads unreachable', { error: error instanceof Error ? error.message : error });
    throw new PlatformError('google_ads', 'retryable', 'Google Ads could not be reached. Try again in a minute.');
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { raw: text.slice(0, 200) };
  }
  if (response.status !== 200 || !Array.isArray(body)) throw reportError(response.status, body as Record<string, unknown>);
  const failed = (body as Array<{ error?: { code?: number } }>).find((batch) => batch.error);
  if (failed) throw reportError(Number(failed.error!.code ?? 500), failed as Record<string, unknown>);
  return countedRows(body as CountedBatch[], new Set(request.targets.map((target) => target.id)));
};
