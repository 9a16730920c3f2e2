/**
 * LinkedIn's matching rules (Conversions API `user.userIds`): SHA256_EMAIL is the SHA-256 of the email
 * trimmed and lowercased (sandbox/matching.ts judges by it). li_fat_id is a click id, never hashed: it is
 * counted as present, not matched.
 */
import { emailTrimmedLowercase, sha256, type Matcher } from '@/sandbox/normalise';

export const LINKEDIN_MATCHING = {
  platform: 'linkedin',
  forms: (person) => [['SHA256_EMAIL', sha256(emailTrimmedLowercase(person.email))]] as const,
} as const satisfies Matcher;
