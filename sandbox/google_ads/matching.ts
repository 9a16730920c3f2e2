/**
 * Google's matching rules (Data Manager, "Format user data"): how it normalises an email, a phone and
 * an address before SHA-256, and so the identifiers of each known person it recognises
 * (sandbox/matching.ts judges by them).
 */
import { nameForm, phoneE164, sha256, type Matcher } from '@/sandbox/normalise';

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

/**
 * Google's postal code arrives in clear, and Google reads it itself: compared without spaces, in
 * capitals, a US ZIP+4 by its first 5 digits (the guide takes 5 digits or ZIP+4 for the US).
 */
export const postalGoogle = (postal: string, region: string) => {
  const compact = postal.replace(/\s/g, '').toUpperCase();
  return region === 'US' ? compact.slice(0, 5) : compact;
};

/** Google's address identifier as a comparable text (lowercase): hashed names, region and postal code in clear. */
const addressKey = (givenNameHash: string, familyNameHash: string, region: string, postal: string) =>
  `${givenNameHash.toLowerCase()}|${familyNameHash.toLowerCase()}|${region}|${postalGoogle(postal, region)}`;

/** Google's address identifier, read as Google compares it. */
export const googleAddressKey = (address: { given_name?: unknown; family_name?: unknown; region_code?: unknown; postal_code?: unknown }) =>
  addressKey(
    String(address.given_name ?? ''),
    String(address.family_name ?? ''),
    String(address.region_code ?? ''),
    String(address.postal_code ?? ''),
  );

/** Google knows each person by the hash of its email and phone in Google's forms, and by its address. */
export const GOOGLE_MATCHING = {
  platform: 'google',
  forms: (person) => {
    const region = person.countryCode.trim().toUpperCase();
    return [
      ['email_address', sha256(emailGoogle(person.email))],
      ['phone_number', sha256(phoneE164(person.phoneE164))],
      ['address', addressKey(sha256(nameForm(person.firstName)), sha256(nameForm(person.lastName)), region, person.postalCode)],
    ] as const;
  },
} as const satisfies Matcher;
