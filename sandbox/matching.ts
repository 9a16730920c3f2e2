/**
 * How each fake platform matches the hashed identifiers it receives, by its own documented rules, and
 * the counts of what matched (docs/SANDBOX.md lists each rule and the document it comes from).
 *
 * For every known person (sandbox/people.ts) each platform computes the SHA-256 of that person in the
 * form it documents; a hash of any other form (Meta's phone sent to Google, a Gmail address with its
 * dots sent to Google, "maryann" for "Mary Ann") is unknown to it, as it would be to the platform. The
 * ledger counts, per platform, target (pixel, conversion action, goal) and event name: events
 * received, events whose every identifier matched, events with an identifier that did not, and per
 * identifier how many were sent and how many matched.
 */
import { createHash } from 'node:crypto';
import { KNOWN_PEOPLE, type KnownPerson } from '@/sandbox/people';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

// --- Each platform's documented normalisation ------------------------------------------------------

/** Meta (Customer Information Parameters) and Microsoft: email trimmed and lowercased. */
export const emailTrimmedLowercase = (email: string) => email.trim().toLowerCase();

/**
 * Google Data Manager ("Format user data"): lowercase, every whitespace removed; for gmail.com and
 * googlemail.com the dots of the local part and anything from its "+" removed.
 */
export function emailGoogle(email: string): string {
  const lower = email.replace(/\s/g, '').toLowerCase();
  const at = lower.lastIndexOf('@');
  const domain = lower.slice(at + 1);
  if (domain !== 'gmail.com' && domain !== 'googlemail.com') return lower;
  return `${lower.slice(0, at).split('+')[0]!.replace(/\./g, '')}@${domain}`;
}

/** Meta ph: digits only, with the country code, no "+" and no leading zeros. */
export const phoneMeta = (e164: string) => e164.replace(/\D/g, '').replace(/^0+/, '');

/** Google phone_number and Microsoft HashedPhoneNumber: E.164 with its "+". */
export const phoneE164 = (e164: string) => `+${e164.replace(/\D/g, '')}`;

/**
 * Meta fn/ln, and Google's given_name/family_name: lowercase, no punctuation, trimmed; inner spaces
 * kept (a run of them is one), letters of any script in UTF-8 ("Mary Ann" → "mary ann", "O'Brien" →
 * "obrien", "José" → "josé").
 */
export const nameForm = (name: string) =>
  name
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Meta ct and st: lowercase, no spaces, punctuation or symbols ("St. Louis" → "stlouis", " mo" → "mo"). */
export const placeMeta = (place: string) =>
  place
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}\s\d]/gu, '');

/** Meta zp: lowercase, no spaces; a US ZIP+4 is its first 5 digits ("94043-1351" → "94043", "SW1A 1AA" → "sw1a1aa"). */
export const zipMeta = (postal: string, country: string) => {
  const compact = postal.toLowerCase().replace(/\s/g, '');
  return country.trim().toUpperCase() === 'US' ? compact.slice(0, 5) : compact.replace(/-/g, '');
};

/** Meta country: ISO 3166-1 alpha-2, lowercase. */
export const countryMeta = (country: string) => country.trim().toLowerCase();

/** Meta db: YYYYMMDD. */
export const birthMeta = (date: string) => date.replace(/-/g, '');

/**
 * Google's postal code arrives in clear, and Google reads it itself: compared without spaces, in
 * capitals, a US ZIP+4 by its first 5 digits (the guide takes 5 digits or ZIP+4 for the US).
 */
export const postalGoogle = (postal: string, region: string) => {
  const compact = postal.replace(/\s/g, '').toUpperCase();
  return region === 'US' ? compact.slice(0, 5) : compact;
};

// --- The keys each platform matches, for every known person ------------------------------------------

export type MatchPlatform = 'meta' | 'google' | 'microsoft';

/** Meta's user_data keys that are hashed contact information. */
export const META_KEYS = ['em', 'ph', 'fn', 'ln', 'ct', 'st', 'zp', 'country', 'db', 'ge'] as const;
export type MetaKey = (typeof META_KEYS)[number];
export type GoogleKey = 'email_address' | 'phone_number' | 'address';
export type MicrosoftKey = 'HashedEmailAddress' | 'HashedPhoneNumber';

function metaForms(person: KnownPerson): Partial<Record<MetaKey, string>> {
  return {
    em: emailTrimmedLowercase(person.email),
    ph: phoneMeta(person.phoneE164),
    fn: nameForm(person.firstName),
    ln: nameForm(person.lastName),
    ct: placeMeta(person.city),
    ...(person.state ? { st: placeMeta(person.state) } : {}),
    zp: zipMeta(person.postalCode, person.countryCode),
    country: countryMeta(person.countryCode),
    db: birthMeta(person.dateOfBirth),
    ge: person.gender,
  };
}

/** Google's address identifier as a comparable text (lowercase): hashed names, region and postal code in clear. */
const addressKey = (givenNameHash: string, familyNameHash: string, region: string, postal: string) =>
  `${givenNameHash.toLowerCase()}|${familyNameHash.toLowerCase()}|${region}|${postalGoogle(postal, region)}`;

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
  for (const person of KNOWN_PEOPLE) {
    if (platform === 'meta') {
      for (const [key, value] of Object.entries(metaForms(person))) add(key, sha256(value), person.id);
    } else if (platform === 'google') {
      add('email_address', sha256(emailGoogle(person.email)), person.id);
      add('phone_number', sha256(phoneE164(person.phoneE164)), person.id);
      const region = person.countryCode.trim().toUpperCase();
      add(
        'address',
        addressKey(sha256(nameForm(person.firstName)), sha256(nameForm(person.lastName)), region, person.postalCode),
        person.id,
      );
    } else {
      add('HashedEmailAddress', sha256(emailTrimmedLowercase(person.email)), person.id);
      add('HashedPhoneNumber', sha256(phoneE164(person.phoneE164)), person.id);
    }
  }
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

/** Google's address identifier, read as Google compares it. */
export const googleAddressKey = (address: { given_name?: unknown; family_name?: unknown; region_code?: unknown; postal_code?: unknown }) =>
  addressKey(
    String(address.given_name ?? ''),
    String(address.family_name ?? ''),
    String(address.region_code ?? ''),
    String(address.postal_code ?? ''),
  );

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
