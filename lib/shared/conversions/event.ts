import { z } from 'zod';

/**
 * A conversion event as it travels from ingest to the platforms: personal identifiers already
 * normalised and SHA-256 hashed (lowercase hex), click ids and context in clear (platforms never
 * want those hashed). Nothing here is a raw email or phone number; `maskedEmail` (j***@example.com)
 * is what the delivery log shows.
 */

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

export const conversionEventSchema = z.object({
  /** The caller's id, else derived from the payload: the platforms' dedup key and ours. */
  id: z.string().min(1).max(100),
  /** The event name the source gave ("Lead", "Purchase", "Form Submitted"). */
  name: z.string().min(1).max(100),
  /** When it happened, Unix seconds. */
  time: z.number().int().nonnegative(),
  value: z.number().nonnegative().nullable(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .nullable(),
  /** Hashed identifiers (SHA-256 hex of the normalised value). */
  user: z.object({
    email: sha256Hex.optional(),
    phone: sha256Hex.optional(),
    firstName: sha256Hex.optional(),
    lastName: sha256Hex.optional(),
    externalId: sha256Hex.optional(),
  }),
  /** Click ids and browser ids, never hashed. */
  clickIds: z.object({
    gclid: z.string().max(200).optional(),
    gbraid: z.string().max(200).optional(),
    wbraid: z.string().max(200).optional(),
    fbc: z.string().max(500).optional(),
    fbp: z.string().max(500).optional(),
    msclkid: z.string().max(200).optional(),
  }),
  context: z.object({
    ip: z.string().max(64).optional(),
    userAgent: z.string().max(1000).optional(),
    pageUrl: z.string().max(2000).optional(),
    /** Where it happened: a website form, or a system (a payment, a warehouse row). */
    actionSource: z.enum(['website', 'system_generated']),
  }),
  /** For the delivery log only: j***@example.com. */
  maskedEmail: z.string().max(400).optional(),
});

export type ConversionEvent = z.infer<typeof conversionEventSchema>;

/** An event's identifiers under the names our analytics and warehouse rows give them (hashes say so); absent ones undefined. */
export function identifierFields({ user, clickIds }: ConversionEvent): Record<string, string | undefined> {
  return {
    email_sha256: user.email,
    phone_sha256: user.phone,
    first_name_sha256: user.firstName,
    last_name_sha256: user.lastName,
    external_id_sha256: user.externalId,
    gclid: clickIds.gclid,
    gbraid: clickIds.gbraid,
    wbraid: clickIds.wbraid,
    fbc: clickIds.fbc,
    fbp: clickIds.fbp,
    msclkid: clickIds.msclkid,
  };
}

/** What became of one event at one target, in words a marketer reads in the delivery log. */
export type RowOutcome =
  | { id: string; status: 'delivered' }
  /** The platform refused this row (its reason, e.g. "older than 7 days"). */
  | { id: string; status: 'rejected'; reason: string }
  /** We did not send it: the platform would refuse it (e.g. no identifier it can match). */
  | { id: string; status: 'not_sent'; reason: string };
