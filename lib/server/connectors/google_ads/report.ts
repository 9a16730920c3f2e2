import { type AdLevel, type AdRow, fromMicros } from '@/lib/shared/connections/rows';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { googleAdsConfig } from '@/lib/server/connectors/google_ads/config';
import { bearer } from '@/lib/server/connectors/http';
import { googleAdsError } from '@/lib/server/connectors/google_ads/errors';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Report } from '@/lib/server/connectors/types';
import { errorFields, log } from '@/lib/server/log';

/**
 * Google Ads performance through googleAds:searchStream: one GAQL query per account and window, its
 * answer (a JSON array of batches of up to 10,000 rows) read as it streams in, each batch yielded as
 * AdRows. Money comes as micros of the account currency; days are the account's own.
 */

/** The GAQL resource each level is read FROM. */
export const REPORT_RESOURCE: Record<AdLevel, string> = { campaign: 'campaign', ad_group: 'ad_group', ad: 'ad_group_ad' };

const LEVEL_FIELDS: Record<AdLevel, string[]> = {
  campaign: ['campaign.id', 'campaign.name'],
  ad_group: ['campaign.id', 'campaign.name', 'ad_group.id', 'ad_group.name'],
  ad: ['campaign.id', 'campaign.name', 'ad_group.id', 'ad_group.name', 'ad_group_ad.ad.id', 'ad_group_ad.ad.name'],
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The daily GAQL query of a level and window (from and to inclusive, YYYY-MM-DD, checked: they go into the query text). */
export function reportQuery(level: AdLevel, from: string, to: string): string {
  if (!DAY.test(from) || !DAY.test(to))
    throw new PlatformError('google_ads', 'invalid', `Report days must be YYYY-MM-DD, not ${from} – ${to}.`);
  const fields = [
    'customer.id',
    'customer.descriptive_name',
    'customer.currency_code',
    'customer.time_zone',
    ...LEVEL_FIELDS[level],
    'segments.date',
    'metrics.impressions',
    'metrics.clicks',
    'metrics.cost_micros',
    'metrics.conversions',
    'metrics.conversions_value',
  ];
  return `SELECT ${fields.join(', ')} FROM ${REPORT_RESOURCE[level]} WHERE segments.date BETWEEN '${from}' AND '${to}'`;
}

type Fields = Record<string, unknown>;

/** One GoogleAdsRow in REST JSON: int64 as strings, doubles as numbers, zeros left out. */
export interface GoogleAdsRow {
  customer?: { id?: string; descriptiveName?: string; currencyCode?: string; timeZone?: string };
  campaign?: { id?: string; name?: string };
  adGroup?: { id?: string; name?: string };
  adGroupAd?: { ad?: { id?: string; name?: string } };
  segments?: { date?: string };
  metrics?: { impressions?: string; clicks?: string; costMicros?: string; conversions?: number; conversionsValue?: number };
}

/** One batch of a REST searchStream answer. */
export interface SearchStreamBatch {
  results?: GoogleAdsRow[];
  fieldMask?: string;
  requestId?: string;
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const idOrNull = (value: unknown) => (value === undefined || value === null ? null : String(value));
const count = (value: unknown) => Number(value ?? 0);

/** A batch's rows as AdRows of `level`; the account's currency, time zone and name come from each row's customer fields. */
export function toAdRows(batch: SearchStreamBatch, account: AdAccount, level: AdLevel): AdRow[] {
  return (batch.results ?? []).map((row) => {
    const customer = row.customer ?? {};
    const metrics = row.metrics ?? {};
    return {
      date: text(row.segments?.date),
      platform: 'google_ads',
      account_id: text(customer.id ?? account.id),
      account_name: customer.descriptiveName || account.name,
      currency: customer.currencyCode ?? account.currency ?? '',
      time_zone: text(customer.timeZone),
      campaign_id: text(row.campaign?.id),
      campaign_name: text(row.campaign?.name),
      ad_group_id: level === 'campaign' ? null : idOrNull(row.adGroup?.id),
      ad_group_name: level === 'campaign' ? null : text(row.adGroup?.name),
      ad_id: level === 'ad' ? idOrNull(row.adGroupAd?.ad?.id) : null,
      ad_name: level === 'ad' ? text(row.adGroupAd?.ad?.name) : null,
      impressions: count(metrics.impressions),
      clicks: count(metrics.clicks),
      spend: fromMicros(metrics.costMicros ?? 0),
      conversions: count(metrics.conversions),
      conversion_value: count(metrics.conversionsValue),
    };
  });
}

/** A protobuf Duration in JSON ("30s", "1.5s") in milliseconds, or null. */
const durationMs = (value: unknown) => {
  const seconds = typeof value === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(value)?.[1] : undefined;
  return seconds === undefined ? null : Number(seconds) * 1000;
};

/** The retry delay Google sent with a quota error: GoogleAdsFailure's quotaErrorDetails, or google.rpc.RetryInfo. */
function retryDelayMs(details: Fields[]): number | null {
  for (const detail of details) {
    const fromRetryInfo = durationMs(detail.retryDelay);
    if (fromRetryInfo !== null) return fromRetryInfo;
    for (const error of (detail.errors as Fields[] | undefined) ?? []) {
      const quota = (error.details as { quotaErrorDetails?: Fields } | undefined)?.quotaErrorDetails;
      const fromQuota = durationMs(quota?.retryDelay);
      if (fromQuota !== null) return fromQuota;
    }
  }
  return null;
}

/** A refused searchStream as Google's error table classifies it; a quota error comes back when Google said. */
export function reportError(status: number, body: Fields, now = new Date()): PlatformError {
  const delay = retryDelayMs(((body.error ?? {}) as { details?: Fields[] }).details ?? []);
  return googleAdsError(status, body, delay === null ? undefined : new Date(now.getTime() + delay));
}

/** How long to wait for the answer to start, and then between two pieces of it. */
const HEADERS_TIMEOUT_MS = 30_000;
const IDLE_TIMEOUT_MS = 60_000;

const unreachable = () => new PlatformError('google_ads', 'retryable', 'Google Ads could not be reached. Try again in a minute.');

const [QUOTE, BACKSLASH, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE] = ['"', '\\', '[', ']', '{', '}'].map((char) =>
  char.charCodeAt(0),
);
/** JSON's whitespace: space, tab, line feed, carriage return. */
const JSON_WHITESPACE = new Set([32, 9, 10, 13]);

/**
 * The elements of a streamed JSON array, each parsed as soon as its closing brace arrives: a scan of
 * string and nesting state over the chunks, so only the element being read is held. Each chunk is scanned
 * on its own (an element's earlier chunks are kept as pieces, joined once it closes: appending them to one
 * growing string made every chunk copy the element so far), a string skipped with indexOf to its closing
 * quote, the rest read a character code at a time.
 */
export async function* jsonArrayElements(chunks: AsyncIterable<string>): AsyncGenerator<unknown> {
  let depth = 0;
  let inString = false;
  /** Backslashes at the end of the text scanned so far, inside a string: they may escape the next chunk's quote. */
  let slashesBefore = 0;
  let opened = false;
  /** The element being read: its text from earlier chunks (empty when it began in this one or none is open). */
  let pieces: string[] = [];
  for await (const chunk of chunks) {
    const complete: string[] = [];
    // Where the open element begins in this chunk: 0 when it began in an earlier one, -1 when none is open.
    let start = depth >= 2 ? 0 : -1;
    let index = 0;
    while (index < chunk.length) {
      if (inString) {
        const quote = chunk.indexOf('"', index);
        if (quote < 0) break;
        // The quote ends the string unless an odd run of backslashes escapes it.
        let back = quote - 1;
        while (back >= index && chunk.charCodeAt(back) === BACKSLASH) back -= 1;
        const slashes = quote - 1 - back + (back < 0 ? slashesBefore : 0);
        if (slashes % 2 === 0) inString = false;
        slashesBefore = 0;
        index = quote + 1;
        continue;
      }
      const code = chunk.charCodeAt(index);
      if (code === QUOTE) inString = true;
      else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
        if (depth === 0 && (code !== OPEN_BRACKET || opened)) throw new SyntaxError('The answer is not a JSON array.');
        opened = true;
        depth += 1;
        if (depth === 2) start = index;
      } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
        depth -= 1;
        if (depth === 1 && start >= 0) {
          complete.push(pieces.length > 0 ? pieces.join('') + chunk.slice(start, index + 1) : chunk.slice(start, index + 1));
          pieces = [];
          start = -1;
        }
      } else if (depth === 0 && !JSON_WHITESPACE.has(code)) throw new SyntaxError('The answer is not a JSON array.');
      index += 1;
    }
    if (inString) {
      // The chunk ended inside a string: count the backslashes it ended with (all of it: add the earlier ones).
      let back = chunk.length - 1;
      while (back >= index && chunk.charCodeAt(back) === BACKSLASH) back -= 1;
      slashesBefore = chunk.length - 1 - back + (back < index ? slashesBefore : 0);
    }
    if (start >= 0) pieces.push(chunk.slice(start));
    for (const element of complete) yield JSON.parse(element);
  }
  if (!opened || depth !== 0) throw new SyntaxError('The answer ended before its JSON array did.');
}

/** A response body as text chunks; a stall past the idle timeout aborts it. */
async function* textChunks(body: ReadableStream<Uint8Array>, controller: AbortController): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const idle = setTimeout(() => controller.abort(), IDLE_TIMEOUT_MS);
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } finally {
        clearTimeout(idle);
      }
      if (next.done) break;
      yield decoder.decode(next.value, { stream: true });
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } finally {
    reader.releaseLock();
  }
}

/**
 * One account's performance at a level over a window, through its manager when it has one
 * (login-customer-id). A manager account has no ads of its own and is refused, never skipped.
 */
export const googleAdsReport: Report = async function* (session, request) {
  const { account, level, from, to } = request;
  if (account.isManager) {
    throw new PlatformError(
      'google_ads',
      'invalid',
      `${account.name || account.id} is a Google Ads manager account: it has no ads of its own. Report on its client accounts instead.`,
    );
  }
  const query = reportQuery(level, from, to);
  const config = googleAdsConfig();
  const controller = new AbortController();
  const headersTimeout = setTimeout(() => controller.abort(), HEADERS_TIMEOUT_MS);
  request.onCall?.();
  let response: Response;
  try {
    response = await fetch(`${config.apiUrl}/${config.version}/customers/${account.id}/googleAds:searchStream`, {
      method: 'POST',
      headers: { ...bearer(session.accessToken), 'Content-Type': 'application/json', 'login-customer-id': account.managerId ?? account.id },
      body: JSON.stringify({ query }),
      signal: controller.signal,
    });
  } catch (error) {
    log.warn({ component: 'platforms', platform: 'google_ads', ...errorFields(error) }, 'Google Ads unreachable');
    throw unreachable();
  } finally {
    clearTimeout(headersTimeout);
  }
  if (response.status !== 200 || !response.body) {
    const raw = await response.text().catch(() => '');
    let body: Fields = {};
    try {
      body = raw ? (JSON.parse(raw) as Fields) : {};
    } catch {
      body = { raw: raw.slice(0, 200) };
    }
    throw reportError(response.status, body);
  }
  try {
    for await (const element of jsonArrayElements(textChunks(response.body, controller))) {
      const batch = element as SearchStreamBatch & { error?: { code?: number } };
      // A failure after the stream began comes as an element of the array.
      if (batch.error) throw reportError(Number(batch.error.code ?? 500), batch as Fields);
      const rows = toAdRows(batch, account, level);
      if (rows.length) yield rows;
    }
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    log.warn({ component: 'platforms', platform: 'google_ads', account: account.id, ...errorFields(error) }, 'Google Ads stream broke off');
    throw unreachable();
  } finally {
    // Stops reading when the caller stopped early; a finished response is not affected.
    controller.abort();
  }
};
