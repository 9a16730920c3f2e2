/**
 * How each fake platform matches the hashed identifiers it receives, by its own documented rules, and
 * the counts of what matched (docs/SANDBOX.md lists each rule and the document it comes from).
 *
 * For every known person (sandbox/people.ts) each platform computes the SHA-256 of that person in the
 * form it documents (its rules: sandbox/<platform>/matching.ts); a hash of any other form (Meta's phone
 * sent to Google, a Gmail address with its dots sent to Google, "maryann" for "Mary Ann") is unknown to
 * it, as it would be to the platform. The ledger counts, per platform, target (pixel, conversion action,
 * goal) and event name: events received, events whose every identifier matched, events with an
 * identifier that did not, and per identifier how many were sent and how many matched.
 */
import { GOOGLE_MATCHING } from '@/sandbox/google_ads/matching';
import { META_MATCHING } from '@/sandbox/meta_ads/matching';
import { MICROSOFT_MATCHING } from '@/sandbox/microsoft_ads/matching';
import { LINKEDIN_MATCHING } from '@/sandbox/linkedin_ads/matching';
import { KNOWN_PEOPLE } from '@/sandbox/people';
import { TIKTOK_MATCHING } from '@/sandbox/tiktok_ads/matching';

/** The platforms that match identifiers, each by its rules in its own folder. */
const MATCHERS = [META_MATCHING, GOOGLE_MATCHING, MICROSOFT_MATCHING, LINKEDIN_MATCHING, TIKTOK_MATCHING] as const;

export type MatchPlatform = (typeof MATCHERS)[number]['platform'];

interface Directory {
  /** key → (hash → a person it belongs to; names, cities and countries are shared by several) */
  byKey: Map<string, Map<string, string>>;
  /** person id → key → hash */
  byPerson: Map<string, Map<string, string>>;
}

function directory(platform: MatchPlatform): Directory {
  const byKey = new Map<string, Map<string, string>>();
  const byPerson = new Map<string, Map<string, string>>();
  const add = (key: string, value: string, id: string) => {
    const hash = value.toLowerCase();
    if (!byKey.has(key)) byKey.set(key, new Map());
    if (!byKey.get(key)!.has(hash)) byKey.get(key)!.set(hash, id);
    if (!byPerson.has(id)) byPerson.set(id, new Map());
    byPerson.get(id)!.set(key, hash);
  };
  const matcher = MATCHERS.find((candidate) => candidate.platform === platform)!;
  for (const person of KNOWN_PEOPLE) for (const [key, value] of matcher.forms(person)) add(key, value, person.id);
  return { byKey, byPerson };
}

const directories = new Map<MatchPlatform, Directory>();
const directoryOf = (platform: MatchPlatform) => {
  let found = directories.get(platform);
  if (!found) directories.set(platform, (found = directory(platform)));
  return found;
};

/** The person a hashed value of this key belongs to, in this platform's form; null when it is nobody's. */
export function personOf(platform: MatchPlatform, key: string, hash: string): string | null {
  return directoryOf(platform).byKey.get(key)?.get(hash.toLowerCase()) ?? null;
}

/** The hash a platform knows for a person's key (tests use it to send a correct, or a wrong, form). */
export function knownHash(platform: MatchPlatform, key: string, personId: string): string | null {
  return directoryOf(platform).byPerson.get(personId)?.get(key) ?? null;
}

// --- The ledger --------------------------------------------------------------------------------------

/** One identifier of one event: its key and hashed value(s) as received (hex, lowercase or not). */
export interface ReceivedIdentifier {
  key: string;
  value: string;
}

export interface KeyCounts {
  sent: number;
  matched: number;
}

export interface MatchCounts {
  platform: MatchPlatform;
  target: string;
  eventName: string;
  /** Events received. */
  events: number;
  /** Events carrying hashed identifiers, every one of them a known person's in the platform's form. */
  matched: number;
  /** Events with at least one hashed identifier the platform does not know (a wrong form, or a stranger). */
  unmatched: number;
  /** Events with no hashed identifier (click ids, IP and browser only). */
  withoutIdentifiers: number;
  keys: Record<string, KeyCounts>;
  /** Events carrying each identifier that is not hashed contact information (click ids, IP, browser, external id). */
  present: Record<string, number>;
}

export type MatchLedger = ReturnType<typeof createMatchLedger>;

const empty = (platform: MatchPlatform, target: string): MatchCounts => ({
  platform,
  target,
  eventName: '*',
  events: 0,
  matched: 0,
  unmatched: 0,
  withoutIdentifiers: 0,
  keys: {},
  present: {},
});

export function createMatchLedger() {
  const counts = new Map<string, MatchCounts>();
  /** Reads of a target's own figure (Meta's Dataset Quality API): each spends the customer's quota. */
  const reads = new Map<string, number>();
  const countRead = (platform: MatchPlatform, target: string) => reads.set(`${platform}|${target}`, readsOf(platform, target) + 1);
  const readsOf = (platform: MatchPlatform, target: string) => reads.get(`${platform}|${target}`) ?? 0;

  /** Judges one event's identifiers by the platform's rules and counts it under its target and event name. */
  function judge(
    platform: MatchPlatform,
    target: string,
    eventName: string,
    identifiers: readonly ReceivedIdentifier[],
    present: readonly string[] = [],
  ) {
    const id = `${platform}|${target}|${eventName}`;
    let entry = counts.get(id);
    if (!entry) counts.set(id, (entry = { ...empty(platform, target), eventName }));
    entry.events += 1;
    for (const key of present) entry.present[key] = (entry.present[key] ?? 0) + 1;
    if (identifiers.length === 0) {
      entry.withoutIdentifiers += 1;
      return { matched: true, unknown: [] as string[] };
    }
    const unknown: string[] = [];
    for (const { key, value } of identifiers) {
      const keyCounts = (entry.keys[key] ??= { sent: 0, matched: 0 });
      keyCounts.sent += 1;
      if (personOf(platform, key, value)) keyCounts.matched += 1;
      else unknown.push(key);
    }
    if (unknown.length === 0) entry.matched += 1;
    else entry.unmatched += 1;
    return { matched: unknown.length === 0, unknown };
  }

  /** The counts per target and event name: all, a platform's, or one target's. */
  function list(filter: { platform?: MatchPlatform; target?: string } = {}): MatchCounts[] {
    return [...counts.values()].filter(
      (entry) => (!filter.platform || entry.platform === filter.platform) && (!filter.target || entry.target === filter.target),
    );
  }

  /** A target's counts over all its event names. */
  function total(platform: MatchPlatform, target: string): MatchCounts {
    const sum = empty(platform, target);
    for (const entry of list({ platform, target })) {
      sum.events += entry.events;
      sum.matched += entry.matched;
      sum.unmatched += entry.unmatched;
      sum.withoutIdentifiers += entry.withoutIdentifiers;
      for (const [key, value] of Object.entries(entry.present)) sum.present[key] = (sum.present[key] ?? 0) + value;
      for (const [key, value] of Object.entries(entry.keys)) {
        const keyCounts = (sum.keys[key] ??= { sent: 0, matched: 0 });
        keyCounts.sent += value.sent;
        keyCounts.matched += value.matched;
      }
    }
    return sum;
  }

  return { judge, list, total, countRead, reads: readsOf, reset: () => counts.clear() };
}
