import type { AdLevel, AdRow } from '@/lib/shared/connections/rows';
import { addDays, daysInclusive } from '@/lib/shared/connections/windows';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { accountUrn, encodedUrn, idOf, linkedin, restliQuery } from '@/lib/server/connectors/linkedin_ads/api';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Report, Session } from '@/lib/server/connectors/types';

/**
 * Ad performance from LinkedIn's adAnalytics (Ads Reporting): daily rows of one account, pivoted by the
 * level's objects — our campaign is LinkedIn's campaign group, our ad group its campaign, our ad its
 * creative. adAnalytics has no paging and answers at most 15,000 elements: each request's days × objects
 * stays inside that (the objects are counted first, from the account's lists, which also give their names).
 * LinkedIn's days are UTC days.
 */

/** "The adAnalytics endpoint … returns a maximum of 15,000 elements" per request (no pagination). */
export const MAX_ELEMENTS = 15_000;
/** Days asked in one request at most, however few objects the account has. */
export const MAX_DAYS_PER_REQUEST = 366;
/** The object lists' page size (search finders take up to 1,000 with pageToken paging). */
const LIST_PAGE_SIZE = 1000;

/** The pivots of each level, outermost first (q=analytics takes one, q=statistics up to three). */
export const PIVOTS: Record<AdLevel, string[]> = {
  campaign: ['CAMPAIGN_GROUP'],
  ad_group: ['CAMPAIGN_GROUP', 'CAMPAIGN'],
  ad: ['CAMPAIGN_GROUP', 'CAMPAIGN', 'CREATIVE'],
};

/** The metrics read (adAnalytics' fields; costs and values are decimal strings in the account's currency). */
export const METRICS = ['impressions', 'clicks', 'costInLocalCurrency', 'externalWebsiteConversions', 'conversionValueInLocalCurrency'];

interface Named {
  id: string;
  name: string;
  /** The campaign's campaign group (a campaign), or the creative's campaign (a creative). */
  parent?: string;
}

/** Every element of a search finder, page by page (pageSize / pageToken, metadata.nextPageToken). */
async function listAll(
  session: Session,
  path: string,
  query: Record<string, string>,
  onCall?: () => void,
): Promise<Array<Record<string, unknown>>> {
  const all: Array<Record<string, unknown>> = [];
  let pageToken: string | null = null;
  do {
    const body = await linkedin(
      session.accessToken,
      `${path}?${restliQuery({ ...query, pageSize: String(LIST_PAGE_SIZE), ...(pageToken ? { pageToken: encodeURIComponent(pageToken) } : {}) })}`,
      { onCall },
    );
    all.push(...((body.elements as Array<Record<string, unknown>> | undefined) ?? []));
    const next = (body.metadata as { nextPageToken?: unknown } | undefined)?.nextPageToken;
    pageToken = typeof next === 'string' && next ? next : null;
  } while (pageToken);
  return all;
}

/** The account's campaign groups, campaigns and (at the ad level) creatives, by id, with their names. */
async function objectsOf(session: Session, account: AdAccount, level: AdLevel, onCall?: () => void) {
  const base = `adAccounts/${encodeURIComponent(account.id)}`;
  const named = (elements: Array<Record<string, unknown>>, parentField?: string): Map<string, Named> =>
    new Map(
      elements.map((element) => {
        // Campaign groups and campaigns are numbered, creatives named by URN (urn:li:sponsoredCreative:…).
        const id = idOf(String(element.id ?? ''));
        const parent = parentField && typeof element[parentField] === 'string' ? idOf(element[parentField] as string) : undefined;
        return [id, { id, name: typeof element.name === 'string' ? element.name : id, parent }];
      }),
    );
  const groups = named(await listAll(session, `${base}/adCampaignGroups`, { q: 'search' }, onCall));
  const campaigns =
    level === 'campaign'
      ? new Map<string, Named>()
      : named(await listAll(session, `${base}/adCampaigns`, { q: 'search' }, onCall), 'campaignGroup');
  const creatives =
    level === 'ad' ? named(await listAll(session, `${base}/creatives`, { q: 'criteria' }, onCall), 'campaign') : new Map<string, Named>();
  return { groups, campaigns, creatives };
}

/** The objects one day of the level can have rows for: what a request's element count is bounded by. */
export const objectsPerDay = (counts: { groups: number; campaigns: number; creatives: number }, level: AdLevel) =>
  level === 'campaign' ? counts.groups : level === 'ad_group' ? counts.campaigns : counts.creatives;

/** Days one request may cover so that days × objects stays within the 15,000 elements LinkedIn answers. */
export const daysPerRequest = (objects: number) =>
  Math.max(1, Math.min(MAX_DAYS_PER_REQUEST, Math.floor(MAX_ELEMENTS / Math.max(1, objects))));

const restliDate = (day: string) => `(year:${Number(day.slice(0, 4))},month:${Number(day.slice(5, 7))},day:${Number(day.slice(8, 10))})`;

/** The adAnalytics query of one account, level and window (Rest.li 2.0 form). */
export function analyticsQuery(accountId: string, level: AdLevel, from: string, to: string): string {
  const pivots = PIVOTS[level];
  return restliQuery({
    q: pivots.length === 1 ? 'analytics' : 'statistics',
    ...(pivots.length === 1 ? { pivot: pivots[0]! } : { pivots: `List(${pivots.join(',')})` }),
    timeGranularity: 'DAILY',
    dateRange: `(start:${restliDate(from)},end:${restliDate(to)})`,
    accounts: `List(${encodedUrn(accountUrn(accountId))})`,
    fields: ['dateRange', 'pivotValues', ...METRICS].join(','),
  });
}

interface DateParts {
  year: number;
  month: number;
  day: number;
}
const dayOf = (parts: DateParts | undefined) =>
  parts ? `${parts.year}-${String(parts.month).padStart(2, '0')}-${String(parts.day).padStart(2, '0')}` : '';

/** A decimal string (or number) as a number; unreadable: an error, never a silent 0. */
function amount(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0;
  const number = Number(value);
  if (!Number.isFinite(number)) throw new PlatformError('linkedin_ads', 'retryable', 'LinkedIn sent a report we could not read.');
  return number;
}

export const linkedinReport: Report = async function* (session, request) {
  const { account, level, onCall } = request;
  const { groups, campaigns, creatives } = await objectsOf(session, account, level, onCall);
  const perRequest = daysPerRequest(objectsPerDay({ groups: groups.size, campaigns: campaigns.size, creatives: creatives.size }, level));
  const total = daysInclusive(request.from, request.to);
  for (let offset = 0; offset < total; offset += perRequest) {
    const from = addDays(request.from, offset);
    const to = addDays(request.from, Math.min(total, offset + perRequest) - 1);
    const body = await linkedin(session.accessToken, `adAnalytics?${analyticsQuery(account.id, level, from, to)}`, { onCall });
    const elements = (body.elements as Array<Record<string, unknown>> | undefined) ?? [];
    const rows: AdRow[] = [];
    for (const element of elements) {
      const pivotValues = ((element.pivotValues as string[] | undefined) ?? []).map(idOf);
      const [groupId = '', campaignId = null, creativeId = null] = pivotValues;
      const range = element.dateRange as { start?: DateParts } | undefined;
      const group = groups.get(groupId);
      const campaign = campaignId ? campaigns.get(campaignId) : undefined;
      const creative = creativeId ? creatives.get(creativeId) : undefined;
      rows.push({
        date: dayOf(range?.start),
        platform: 'linkedin_ads',
        account_id: account.id,
        account_name: account.name,
        currency: account.currency ?? '',
        time_zone: 'UTC',
        campaign_id: groupId,
        campaign_name: group?.name ?? groupId,
        ad_group_id: level === 'campaign' ? null : campaignId,
        ad_group_name: level === 'campaign' ? null : (campaign?.name ?? campaignId),
        ad_id: level === 'ad' ? creativeId : null,
        ad_name: level === 'ad' ? (creative?.name ?? creativeId) : null,
        impressions: amount(element.impressions),
        clicks: amount(element.clicks),
        spend: amount(element.costInLocalCurrency),
        conversions: amount(element.externalWebsiteConversions),
        conversion_value: amount(element.conversionValueInLocalCurrency),
      });
    }
    if (rows.length > 0) yield rows;
  }
};
