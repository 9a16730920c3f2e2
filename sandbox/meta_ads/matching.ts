/**
 * Meta's matching rules (Customer Information Parameters): how it normalises each user_data key before
 * SHA-256, and so the hash of each known person it recognises (sandbox/matching.ts judges by them).
 */
import { emailTrimmedLowercase, nameForm, sha256, type Matcher } from '@/sandbox/normalise';
import type { KnownPerson } from '@/sandbox/people';

/** Meta ph: digits only, with the country code, no "+" and no leading zeros. */
export const phoneMeta = (e164: string) => e164.replace(/\D/g, '').replace(/^0+/, '');

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

/** Meta's user_data keys that are hashed contact information. */
export const META_KEYS = ['em', 'ph', 'fn', 'ln', 'ct', 'st', 'zp', 'country', 'db', 'ge'] as const;
export type MetaKey = (typeof META_KEYS)[number];

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

/** Meta knows each person by the SHA-256 of every key in its own form. */
export const META_MATCHING = {
  platform: 'meta',
  forms: (person) => Object.entries(metaForms(person)).map(([key, value]) => [key, sha256(value)] as const),
} as const satisfies Matcher;
