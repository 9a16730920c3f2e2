/**
 * TikTok's matching rules (Events API 2.0 `user`): the email trimmed and lowercased, the phone in E.164 with
 * its +, each hashed with SHA-256 (sandbox/matching.ts judges by them). A hash of Meta's phone (no +) is nobody's.
 */
import { emailTrimmedLowercase, phoneE164, sha256, type Matcher } from '@/sandbox/normalise';

/** The `user` keys that are hashed contact information. */
export const TIKTOK_KEYS = ['email', 'phone'] as const;

/** TikTok knows each person by the hash of its email and phone in TikTok's forms. */
export const TIKTOK_MATCHING = {
  platform: 'tiktok',
  forms: (person) =>
    [
      ['email', sha256(emailTrimmedLowercase(person.email))],
      ['phone', sha256(phoneE164(person.phoneE164))],
    ] as const,
} as const satisfies Matcher;
