/**
 * The sandbox's adAnalytics (Ads Reporting): `q=analytics` with one pivot or `q=statistics` with up to three,
 * DAILY rows of the accounts of `accounts=List(urn:li:sponsoredAccount:…)` over `dateRange=(start:(…),end:(…))`,
 * only the `fields` asked (none: impressions and clicks), at most 20 metrics. No paging: a request whose answer
 * would hold more than 15,000 elements is refused. CONVERSION pivots what the account's rules attributed
 * (sandbox/linkedin_ads/reporting.ts); the other pivots the figures of sandbox/adData.ts: our campaign is
 * LinkedIn's campaign group, our ad group its campaign, our ad its creative.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { daysBetween } from '@/sandbox/adData';
import { accountOf, adAccountOf, LINKEDIN_RULES, linkedinError } from '@/sandbox/linkedin_ads/accounts';
import { json } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

/** "The adAnalytics endpoint … returns a maximum of 15,000 elements" (Ads Reporting). */
export const MAX_ELEMENTS = 15_000;
/** "You can request up to 20 metrics" per request (Ads Reporting, fields). */
export const MAX_METRICS = 20;

const OBJECT_PIVOTS = ['CAMPAIGN_GROUP', 'CAMPAIGN', 'CREATIVE'] as const;
type ObjectPivot = (typeof OBJECT_PIVOTS)[number];
const URN_OF: Record<ObjectPivot, string> = {
  CAMPAIGN_GROUP: 'urn:li:sponsoredCampaignGroup:',
  CAMPAIGN: 'urn:li:sponsoredCampaign:',
  CREATIVE: 'urn:li:sponsoredCreative:',
};
const LEVEL_OF = { CAMPAIGN_GROUP: 'campaign', CAMPAIGN: 'ad_group', CREATIVE: 'ad' } as const;

const dateParts = (day: string) => ({ year: Number(day.slice(0, 4)), month: Number(day.slice(5, 7)), day: Number(day.slice(8, 10)) });
const pad = (value: string) => value.padStart(2, '0');

/** `(start:(year:2026,month:1,day:1),end:(year:2026,month:1,day:31))` as two days; null when unreadable. */
export function parseDateRange(value: string | null): { from: string; to: string } | null {
  const match = /^\(start:\(year:(\d{4}),month:(\d{1,2}),day:(\d{1,2})\)(?:,end:\(year:(\d{4}),month:(\d{1,2}),day:(\d{1,2})\))?\)$/.exec(
    value ?? '',
  );
  if (!match) return null;
  const from = `${match[1]}-${pad(match[2]!)}-${pad(match[3]!)}`;
  const to = match[4] ? `${match[4]}-${pad(match[5]!)}-${pad(match[6]!)}` : new Date().toISOString().slice(0, 10);
  if (Number.isNaN(Date.parse(from)) || Number.isNaN(Date.parse(to)) || from > to) return null;
  return { from, to };
}

/** `List(a,b)` as its items; null when not a list. */
const listOf = (value: string | null) => {
  const match = /^List\((.*)\)$/.exec(value ?? '');
  return match ? match[1]!.split(',').filter(Boolean) : null;
};

export function createAnalytics(store: SandboxStore) {
  return function adAnalytics(_req: IncomingMessage, res: ServerResponse, url: URL) {
    const params = url.searchParams;
    const q = params.get('q');
    const pivots =
      q === 'analytics' ? (params.get('pivot') ? [params.get('pivot')!] : null) : q === 'statistics' ? listOf(params.get('pivots')) : null;
    if (q !== 'analytics' && q !== 'statistics')
      return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'q must be analytics or statistics.', 100);
    if (!pivots || pivots.length === 0 || (q === 'analytics' && pivots.length !== 1) || pivots.length > 3)
      return linkedinError(
        res,
        400,
        'ILLEGAL_ARGUMENT',
        q === 'analytics' ? 'pivot is required (one).' : 'pivots takes one to three values.',
        100,
      );
    if (params.get('timeGranularity') !== 'DAILY')
      return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'The sandbox serves timeGranularity=DAILY only.', 100);
    const range = parseDateRange(params.get('dateRange'));
    if (!range) return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'Invalid dateRange.', 100);
    const accounts = listOf(params.get('accounts'));
    if (!accounts || accounts.length === 0) return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'accounts is required.', 100);
    const found = accounts.map(accountOf);
    if (found.some((account) => !account))
      return linkedinError(res, 403, 'ACCESS_DENIED', 'Not enough permissions to access: adAnalytics.FINDER', 100);
    const fields = (params.get('fields') ?? 'impressions,clicks').split(',').filter(Boolean);
    const metrics = fields.filter((field) => field !== 'dateRange' && field !== 'pivotValues');
    if (metrics.length > MAX_METRICS)
      return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', `At most ${MAX_METRICS} metrics may be requested.`, 100);

    const elements: Array<Record<string, unknown>> = [];
    const days = [...daysBetween(range.from, range.to)].length;
    if (pivots.length === 1 && pivots[0] === 'CONVERSION') {
      for (const account of found) {
        const counts = store.reporting.linkedinRules(String(account!.id));
        for (const rule of LINKEDIN_RULES.filter((candidate) => candidate.accountId === account!.id))
          for (const [day, count] of counts.get(String(rule.id)) ?? [])
            if (day >= range.from && day <= range.to)
              elements.push({
                dateRange: { start: dateParts(day), end: dateParts(day) },
                pivotValues: [`urn:lla:llaPartnerConversion:${rule.id}`],
                externalWebsiteConversions: count,
              });
      }
    } else {
      if (!pivots.every((pivot): pivot is ObjectPivot => (OBJECT_PIVOTS as readonly string[]).includes(pivot)))
        return linkedinError(res, 400, 'ILLEGAL_ARGUMENT', 'The sandbox pivots by CAMPAIGN_GROUP, CAMPAIGN, CREATIVE or CONVERSION.', 100);
      const finest = OBJECT_PIVOTS.filter((pivot) => pivots.includes(pivot)).at(-1)!;
      const level = LEVEL_OF[finest];
      // No paging: an answer over the limit is refused (the sandbox counts each object as active every day).
      const objects = found.reduce((sum, account) => {
        const all = store.adData.objectsOf('linkedin', adAccountOf(account!));
        const ids = all.map((object) => (level === 'campaign' ? object.campaignId : level === 'ad_group' ? object.adGroupId : object.adId));
        return sum + new Set(ids).size;
      }, 0);
      if (objects * days > MAX_ELEMENTS)
        return linkedinError(
          res,
          400,
          'ILLEGAL_ARGUMENT',
          `The request would return ${objects * days} elements, more than the ${MAX_ELEMENTS} adAnalytics returns: narrow the dateRange or the pivots.`,
          100,
        );
      for (const account of found) {
        const status = store.adData.failureOf(String(account!.id));
        if (status === 429)
          return linkedinError(
            res,
            429,
            'TOO_MANY_REQUESTS',
            'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
            101,
          );
        if (status) return linkedinError(res, status, null, 'Internal Server Error');
        for (const row of store.adData.rowsOf('linkedin', adAccountOf(account!), level, range.from, range.to)) {
          const idOf: Record<ObjectPivot, string | null> = { CAMPAIGN_GROUP: row.campaignId, CAMPAIGN: row.adGroupId, CREATIVE: row.adId };
          const all: Record<string, unknown> = {
            dateRange: { start: dateParts(row.date), end: dateParts(row.date) },
            pivotValues: pivots.map((pivot) => `${URN_OF[pivot as ObjectPivot]}${idOf[pivot as ObjectPivot]}`),
            impressions: row.impressions,
            clicks: row.clicks,
            costInLocalCurrency: String(row.spendMicros / 1e6),
            externalWebsiteConversions: row.conversions,
            conversionValueInLocalCurrency: String(row.valueMicros / 1e6),
          };
          elements.push(Object.fromEntries(fields.filter((field) => field in all).map((field) => [field, all[field]])));
        }
      }
    }
    return json(res, 200, { paging: { start: 0, count: 10, links: [] }, elements });
  };
}
