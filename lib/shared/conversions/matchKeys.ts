import { IDENTIFIERS, type Identifier } from '@/lib/shared/conversions/identifiers';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { carries, MATCH_KEYS, type MatchKey, type MatchKeyForms } from '@/lib/shared/conversions/matchKeyForms';
import { CATALOGUE, type Platform } from '@/lib/shared/integrations/platforms';
import type { CatalogueEntry } from '@/lib/shared/integrations/catalogueEntry';

export { MATCH_KEYS, type MatchKey } from '@/lib/shared/conversions/matchKeyForms';

/** How the pages name each match key. */
export const MATCH_KEY_LABELS: Record<MatchKey, string> = {
  email: 'Email',
  phone: 'Phone',
  address: 'Name and address',
  clickId: 'Click id',
  ipUserAgent: 'IP address + user agent',
  consent: 'Consent',
};

/** Consent counts wherever it is recorded: Google carries it, and Meta and Microsoft are not sent what was denied. */
const hasConsent = ({ consent }: ConversionEvent) => Boolean(consent?.adUserData || consent?.adPersonalization);

/**
 * How a platform carries each key: its catalogue record's forms (docs/MATCH_KEYS.md); a key a platform
 * cannot take is absent, and the match-quality section shows only the keys listed (consent where it is carried).
 */
const formsOf = (platform: Platform): MatchKeyForms | undefined => (CATALOGUE[platform] as CatalogueEntry).ad?.matchKeys;

/** Analytics and warehouse rows keep every identifier the event has. */
const ANY: MatchKeyForms = {
  email: { anyOf: ['user.email'] },
  phone: { anyOf: ['user.phone', 'user.phoneE164'] },
  address: { anyOf: ['user.city', 'user.state', 'user.postalCode', 'user.countryCode'] },
  clickId: {
    anyOf: [
      'clickIds.gclid',
      'clickIds.gbraid',
      'clickIds.wbraid',
      'clickIds.fbc',
      'clickIds.msclkid',
      'clickIds.li_fat_id',
      'clickIds.ttclid',
    ],
  },
  ipUserAgent: { allOf: ['context.ip', 'context.userAgent'] },
};

/** The keys a platform matches by (what its conversion endpoint takes); none listed for analytics and warehouses. */
export function matchKeysTakenBy(platform: Platform): MatchKey[] {
  const forms = formsOf(platform);
  return forms ? MATCH_KEYS.filter((key) => key in forms) : [];
}

/** Which match keys this event carries in the form the platform takes (after the conversion's mapping). */
export function matchKeysOf(event: ConversionEvent, platform: Platform): MatchKey[] {
  const forms = formsOf(platform) ?? ANY;
  return MATCH_KEYS.filter((key) => {
    if (key === 'consent') return hasConsent(event);
    const form = forms[key];
    return form !== undefined && carries(event, form);
  });
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
 * Every identifier a platform takes: what an app's routing sends (it takes all its platform accepts,
 * read at delivery, so an identifier added later reaches routings made before it), the keys it matches by
 * and what its record says it also takes. Analytics and warehouse destinations keep every identifier.
 */
export function identifiersTakenBy(platform: Platform): Identifier[] {
  if (!formsOf(platform)) return [...IDENTIFIERS];
  const also = (CATALOGUE[platform] as CatalogueEntry).ad?.alsoTakes ?? [];
  const taken = new Set([...matchKeysTakenBy(platform).flatMap((key) => IDENTIFIERS_OF_KEY[key]), ...also]);
  return IDENTIFIERS.filter((identifier) => taken.has(identifier));
}
