import { addDays, dayIn, daysInclusive, isKnownTimeZone } from '@/lib/shared/connections/windows';
import { googleAdsConfig } from '@/lib/server/connectors/google_ads/config';
import { reportError } from '@/lib/server/connectors/google_ads/report';
import { bearer } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { CountedRow, ReadCounted, Session } from '@/lib/server/connectors/types';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { errorFields, log } from '@/lib/server/log';

/**
 * What Google Ads counted per conversion action and day (docs/PLATFORMS.md): one searchStream per
 * account, `metrics.all_conversions_by_conversion_date` segmented by `segments.conversion_action` and
 * `segments.date`, for every action of the account at once. Google reports no "received" count per
 * day for Data Manager uploads: only what it attributed.
 *
 * Days are the account's: `segments.date` is a day of the customer's `time_zone`, read first
 * (`SELECT customer.time_zone FROM customer`, one more searchStream), so the read asks for as many days as
 * the request, ending on the account's own today at `request.now`, and names the zone (CountedRead).
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

/** The customer's own settings: its time zone, the zone of its `segments.date`. */
export const TIME_ZONE_QUERY = 'SELECT customer.time_zone FROM customer';

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

/** One searchStream of the account (through its manager when it has one): its batches, or a PlatformError. */
async function searchStream(session: Session, account: AdAccount, query: string, onCall?: () => void): Promise<unknown[]> {
  const config = googleAdsConfig();
  onCall?.();
  let response: Response;
  try {
    response = await fetch(`${config.apiUrl}/${config.version}/customers/${account.id}/googleAds:searchStream`, {
      method: 'POST',
      headers: { ...bearer(session.accessToken), 'Content-Type': 'application/json', 'login-customer-id': account.managerId ?? account.id },
      body: JSON.stringify({ query }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    log.error({ component: 'platforms', platform: 'google_ads', ...errorFields(error) }, 'Google Ads unreachable');
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
  return body;
}

/** The customer's time zone from its searchStream answer; UTC when Google names none we know. */
export function timeZoneOf(batches: unknown[]): string {
  const zone = (batches as Array<{ results?: Array<{ customer?: { timeZone?: unknown } }> }>)
    .flatMap((batch) => batch.results ?? [])
    .map((result) => result.customer?.timeZone)
    .find(isKnownTimeZone);
  return zone ?? 'UTC';
}

export const googleAdsCounted: ReadCounted = async (session, request) => {
  const { account, onCall } = request;
  if (account.isManager)
    throw new PlatformError(
      'google_ads',
      'invalid',
      `${account.name || account.id} is a manager account: it has no conversions of its own.`,
    );
  const timeZone = timeZoneOf(await searchStream(session, account, TIME_ZONE_QUERY, onCall));
  // As many days as asked, ending on the account's own today: the days segments.date names.
  const to = dayIn(timeZone, request.now ?? new Date());
  const from = addDays(to, 1 - daysInclusive(request.from, request.to));
  const batches = await searchStream(session, account, countedQuery(from, to), onCall);
  return { timeZone, rows: countedRows(batches as CountedBatch[], new Set(request.targets.map((target) => target.id))) };
};
