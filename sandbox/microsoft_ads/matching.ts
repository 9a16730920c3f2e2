/**
 * Microsoft's matching rules (enhanced conversions of ApplyOfflineConversions): the email trimmed and
 * lowercased, the phone in E.164, each hashed with SHA-256 (sandbox/matching.ts judges by them).
 */
import { emailTrimmedLowercase, phoneE164, sha256, type Matcher } from '@/sandbox/normalise';

/** Microsoft knows each person by the hash of its email and phone in Microsoft's forms. */
export const MICROSOFT_MATCHING = {
  platform: 'microsoft',
  forms: (person) =>
    [
      ['HashedEmailAddress', sha256(emailTrimmedLowercase(person.email))],
      ['HashedPhoneNumber', sha256(phoneE164(person.phoneE164))],
    ] as const,
} as const satisfies Matcher;
