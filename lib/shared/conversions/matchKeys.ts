import { IDENTIFIERS, type Identifier } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { Platform } from '@/lib/shared/integrations/platforms';

/**
 * The kinds of identifier a platform matches a conversion by, as the match-quality section counts them.
 */
export type MatchKey = 'email' | 'phone' | 'address' | 'clickId' | 'ipUserAgent' | 'consent';

export const MATCH_KEYS: MatchKey[] = ['email', 'phone', 'address', 'clickId', 'ipUserAgent', 'consent'];

/** How the pages name each match key. */
export const MATCH_KEY_LABELS: Record<MatchKey, string> = {
  email: 'Email',
  phone: 'Phone',
  address: 'Name and address',
  clickId: 'Click id',
  ipUserAgent: 'IP address + user agent',
  consent: 'Consent',
};

type Has = (event: ConversionEvent) => boolean;

/** Consent counts wherever it is recorded: Google carries it, and Meta and Microsoft are not sent what was denied. */
const hasConsent: Has = ({ consent }) => Boolean(consent?.adUserData || consent?.adPersonalization);

/**
 * Per platform, how each key is carried in the form it takes (docs/MATCH_KEYS.md); a key a platform
 * cannot take is absent, and the match-quality section shows only the keys listed (consent where it is carried).
 */
const CARRIED: Partial<Record<Platform, Partial<Record<MatchKey, Has>>>> = {
  meta_ads: {
    email: ({ user }) => Boolean(user.email),
    phone: ({ user }) => Boolean(user.phone),
    address: ({ user }) => Boolean(user.city || user.state || user.postalCode || user.countryCode),
    clickId: ({ clickIds }) => Boolean(clickIds.fbc),
    ipUserAgent: ({ context }) => Boolean(context.ip && context.userAgent),
  },
  google_ads: {
    email: ({ user }) => Boolean(user.emailGoogle ?? user.email),
    phone: ({ user }) => Boolean(user.phoneE164),
    address: ({ user, address }) => Boolean(address && user.firstName && user.lastName),
    clickId: ({ clickIds }) => Boolean(clickIds.gclid || clickIds.gbraid || clickIds.wbraid),
    ipUserAgent: ({ context }) => Boolean(context.ip && context.userAgent),
    consent: hasConsent,
  },
  microsoft_ads: {
    email: ({ user }) => Boolean(user.email),
    phone: ({ user }) => Boolean(user.phoneE164),
    clickId: ({ clickIds }) => Boolean(clickIds.msclkid),
  },
};

/** Analytics and warehouse rows keep every identifier the event has. */
const ANY: Partial<Record<MatchKey, Has>> = {
  email: ({ user }) => Boolean(user.email),
  phone: ({ user }) => Boolean(user.phone || user.phoneE164),
  address: ({ user }) => Boolean(user.city || user.state || user.postalCode || user.countryCode),
  clickId: ({ clickIds }) => Boolean(clickIds.gclid || clickIds.gbraid || clickIds.wbraid || clickIds.fbc || clickIds.msclkid),
  ipUserAgent: ({ context }) => Boolean(context.ip && context.userAgent),
};

/** The keys a platform matches by (what its conversion endpoint takes); none listed for analytics and warehouses. */
export function matchKeysTakenBy(platform: Platform): MatchKey[] {
  const carried = CARRIED[platform];
  return carried ? MATCH_KEYS.filter((key) => key in carried) : [];
}

/** Which match keys this event carries in the form the platform takes (after the conversion's mapping). */
export function matchKeysOf(event: ConversionEvent, platform: Platform): MatchKey[] {
  const carried = CARRIED[platform] ?? ANY;
  return MATCH_KEYS.filter((key) => (key === 'consent' ? hasConsent(event) : Boolean(carried[key]?.(event))));
}

/** The mapping choices that carry each key (consent travels with every event; Google's address needs the names). */
const IDENTIFIERS_OF_KEY: Record<MatchKey, Identifier[]> = {
  email: ['email'],
  phone: ['phone'],
  address: ['name', 'address'],
  clickId: ['clickIds'],
  ipUserAgent: ['context'],
  consent: [],
};

/**
 * What a platform takes beyond the keys counted above: Meta's Conversions API also matches by date of
 * birth (db), gender (ge) and external id (docs/MATCH_KEYS.md). Google and Microsoft take nothing more.
 */
const ALSO_TAKEN: Partial<Record<Platform, Identifier[]>> = {
  meta_ads: ['name', 'dateOfBirth', 'gender', 'externalId'],
};

/**
 * Every identifier a platform takes: what an app's routing sends (it takes all its platform accepts,
 * read at delivery, so an identifier added later reaches routings made before it). Analytics and
 * warehouse destinations keep every identifier.
 */
export function identifiersTakenBy(platform: Platform): Identifier[] {
  if (!CARRIED[platform]) return [...IDENTIFIERS];
  const taken = new Set([...matchKeysTakenBy(platform).flatMap((key) => IDENTIFIERS_OF_KEY[key]), ...(ALSO_TAKEN[platform] ?? [])]);
  return IDENTIFIERS.filter((identifier) => taken.has(identifier));
}
