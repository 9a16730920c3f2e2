/**
 * The sandbox's ad performance: deterministic synthetic figures per account, campaign, ad group, ad
 * and day, shared by the fake Google Ads, Meta and Microsoft reporting APIs. The same inputs always
 * give the same numbers, so a test can compute what a sync must have written (`rowsOf`). Recent days
 * change between reads after `restate()`, as platforms restate the last days when late conversions
 * and invalid clicks are counted. A switch makes one account's reports fail for a while.
 */
import { sha256Hex } from '@/lib/server/sha256';
import { dayIn } from '@/lib/shared/connections/windows';

export type AdDataPlatform = 'google' | 'meta' | 'microsoft' | 'linkedin' | 'tiktok';
export type AdDataLevel = 'campaign' | 'ad_group' | 'ad';

/** An ad account as the platform keeps it: its day is its own time zone's day. */
export interface SandboxAdAccount {
  id: string;
  name: string;
  currency: string;
  timeZone: string;
}

/** One day of one object at the asked level: money in micros of the account currency (whole cents). */
export interface AdFacts {
  date: string;
  campaignId: string;
  campaignName: string;
  adGroupId: string | null;
  adGroupName: string | null;
  adId: string | null;
  adName: string | null;
  impressions: number;
  clicks: number;
  spendMicros: number;
  conversions: number;
  /** Conversion value in micros of the account currency (whole cents). */
  valueMicros: number;
}

export interface AdDataShape {
  campaigns: number;
  adGroupsPerCampaign: number;
  adsPerAdGroup: number;
}

/** How far back platforms keep daily figures in the sandbox (Meta keeps 37 months; the others more). */
export const SANDBOX_HISTORY_MONTHS = 37;
/** Days before today (the account's today) that a restatement changes. */
export const RESTATED_DAYS = 3;

const DEFAULT_SHAPE: AdDataShape = { campaigns: 3, adGroupsPerCampaign: 2, adsPerAdGroup: 2 };
const CAMPAIGN_KINDS = ['Search', 'Brand', 'Retargeting', 'Prospecting', 'Shopping', 'Video'];

function hashInts(key: string): number[] {
  // Hashed per object and day of every report: the one-shot hash, the same digest as createHash's.
  const hex = sha256Hex(key);
  return [0, 8, 16, 24].map((at) => parseInt(hex.slice(at, at + 8), 16));
}

/** A stable numeric id of `digits` digits for an object of an account. */
function numericId(key: string, digits: number): string {
  const [a = 0, b = 0] = hashInts(key);
  return String((a * 4294967296 + b) % 10 ** digits).padStart(digits, '1');
}

const DAY_MS = 86_400_000;
const toMs = (date: string) => Date.parse(`${date}T00:00:00Z`);
const toDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every day from `from` to `to`, inclusive. */
export function* daysBetween(from: string, to: string): Generator<string> {
  for (let ms = toMs(from); ms <= toMs(to); ms += DAY_MS) yield toDate(ms);
}

/** The first day the sandbox keeps for an account whose today is `today`. */
export function earliestDay(today: string): string {
  const date = new Date(toMs(today));
  date.setUTCMonth(date.getUTCMonth() - SANDBOX_HISTORY_MONTHS);
  return toDate(date.getTime());
}

export type AdDataWorld = ReturnType<typeof createAdData>;

export function createAdData() {
  let shape: AdDataShape = { ...DEFAULT_SHAPE };
  let revision = 0;
  const failing = new Map<string, { status: number; until: number }>();

  /** The campaigns, ad groups and ads of an account: the same every time for the same shape. */
  function objectsOf(platform: AdDataPlatform, account: SandboxAdAccount) {
    const objects: Array<Pick<AdFacts, 'campaignId' | 'campaignName' | 'adGroupId' | 'adGroupName' | 'adId' | 'adName'>> = [];
    for (let c = 0; c < shape.campaigns; c++) {
      const campaignId = numericId(`${platform}/${account.id}/c${c}`, platform === 'meta' ? 15 : 10);
      const campaignName = `${CAMPAIGN_KINDS[c % CAMPAIGN_KINDS.length]} ${Math.floor(c / CAMPAIGN_KINDS.length) + 1}`;
      for (let g = 0; g < shape.adGroupsPerCampaign; g++) {
        const adGroupId = numericId(`${platform}/${account.id}/c${c}/g${g}`, platform === 'meta' ? 15 : 11);
        for (let a = 0; a < shape.adsPerAdGroup; a++) {
          objects.push({
            campaignId,
            campaignName,
            adGroupId,
            adGroupName: `${campaignName} · group ${g + 1}`,
            adId: numericId(`${platform}/${account.id}/c${c}/g${g}/a${a}`, platform === 'meta' ? 15 : 12),
            adName: `Ad ${g + 1}.${a + 1}`,
          });
        }
      }
    }
    return objects;
  }

  /** One ad's figures on one day; the last RESTATED_DAYS days move with each restatement. */
  function figuresOf(platform: AdDataPlatform, accountId: string, adId: string, date: string, age: number) {
    const [h1 = 0, h2 = 0, h3 = 0] = hashInts(`${platform}/${accountId}/${adId}/${date}`);
    const recent = age < RESTATED_DAYS ? revision * (RESTATED_DAYS - age) : 0;
    const impressions = 200 + (h1 % 1800) + recent * 10;
    const clicks = Math.floor((impressions * (1 + (h2 % 40))) / 1000) + recent;
    const spendMicros = clicks * (150_000 + (h3 % 120) * 10_000);
    const conversions = clicks > 0 ? h2 % Math.max(1, Math.ceil(clicks / 8)) : 0;
    const valueMicros = conversions * (20_000_000 + (h1 % 50) * 500_000);
    return { impressions, clicks, spendMicros, conversions, valueMicros };
  }

  /**
   * An account's figures from `from` to `to` (clamped to what the sandbox keeps and to today in the
   * account's time zone), one day at a time, summed to `level`. A generator: a long range is never
   * held whole.
   */
  function* rowsOf(
    platform: AdDataPlatform,
    account: SandboxAdAccount,
    level: AdDataLevel,
    from: string,
    to: string,
    now = new Date(),
  ): Generator<AdFacts> {
    const today = dayIn(account.timeZone, now);
    const start = from < earliestDay(today) ? earliestDay(today) : from;
    const end = to > today ? today : to;
    if (start > end) return;
    const objects = objectsOf(platform, account);
    for (const date of daysBetween(start, end)) {
      const age = Math.round((toMs(today) - toMs(date)) / DAY_MS);
      const sums = new Map<string, AdFacts>();
      for (const object of objects) {
        const key = level === 'campaign' ? object.campaignId : level === 'ad_group' ? object.adGroupId! : object.adId!;
        const figures = figuresOf(platform, account.id, object.adId!, date, age);
        const row = sums.get(key);
        if (row) {
          row.impressions += figures.impressions;
          row.clicks += figures.clicks;
          row.spendMicros += figures.spendMicros;
          row.conversions += figures.conversions;
          row.valueMicros += figures.valueMicros;
          continue;
        }
        sums.set(key, {
          date,
          campaignId: object.campaignId,
          campaignName: object.campaignName,
          adGroupId: level === 'campaign' ? null : object.adGroupId,
          adGroupName: level === 'campaign' ? null : object.adGroupName,
          adId: level === 'ad' ? object.adId : null,
          adName: level === 'ad' ? object.adName : null,
          ...figures,
        });
      }
      yield* sums.values();
    }
  }

  return {
    rowsOf,
    /** An account's campaigns, ad groups and ads (LinkedIn's lists of campaign groups, campaigns and creatives). */
    objectsOf,
    /** How many campaigns, ad groups and ads each account has (the bench asks for 50 campaigns). */
    configure(next: Partial<AdDataShape>) {
      shape = { ...shape, ...next };
    },
    get shape() {
      return shape;
    },
    /** Late conversions and invalid clicks counted: the last days' figures change. */
    restate() {
      revision += 1;
    },
    get revision() {
      return revision;
    },
    /** Makes the reports of one account fail with `status` for `seconds`. */
    failAccount(accountId: string, status = 500, seconds = 3600) {
      if (seconds <= 0) failing.delete(accountId);
      else failing.set(accountId, { status, until: Date.now() + seconds * 1000 });
    },
    /** The status an account's reports fail with right now, or null. */
    failureOf(accountId: string): number | null {
      const failure = failing.get(accountId);
      if (!failure) return null;
      if (failure.until < Date.now()) {
        failing.delete(accountId);
        return null;
      }
      return failure.status;
    },
    /** Seconds until an account's failure ends (a rate limit's honest retry delay), or null. */
    failureEndsIn(accountId: string): number | null {
      const failure = failing.get(accountId);
      return failure ? Math.max(1, Math.ceil((failure.until - Date.now()) / 1000)) : null;
    },
    reset() {
      shape = { ...DEFAULT_SHAPE };
      revision = 0;
      failing.clear();
    },
  };
}
