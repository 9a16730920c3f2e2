/**
 * The forms of a person's contact information that several platforms share, and what one platform's
 * matching rules are (a `Matcher`, kept in sandbox/<platform>/matching.ts). Each rule says which
 * platform document it comes from (docs/SANDBOX.md lists them).
 */
import { createHash } from 'node:crypto';
import type { KnownPerson } from '@/sandbox/people';

/** SHA-256 of UTF-8 text, as hex: how every platform hashes a normalised identifier. */
export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** Meta (Customer Information Parameters) and Microsoft: email trimmed and lowercased. */
export const emailTrimmedLowercase = (email: string) => email.trim().toLowerCase();

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

/** One platform's matching rules: the keys it matches, each known person's value of each in its documented form. */
export interface Matcher {
  /** The platform as the ledgers name it (sandbox/conversions.ts). */
  platform: string;
  /** Each key of the person and its value as the platform compares it (a hash, or Google's address key). */
  forms: (person: KnownPerson) => ReadonlyArray<readonly [key: string, value: string]>;
}
