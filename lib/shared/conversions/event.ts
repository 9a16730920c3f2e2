import { z } from 'zod';

/**
 * A conversion event as it travels from ingest to the platforms: personal identifiers already
 * normalised and SHA-256 hashed (lowercase hex), click ids and context in clear (platforms never
 * want those hashed). Nothing here is a raw email or phone number; `maskedEmail` (j***@example.com)
 * is what the delivery log shows.
 */

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** A person's answer to one consent question: granted, denied, or absent when nobody asked ("not set"). */
export const CONSENT_VALUES = ['granted', 'denied'] as const;
export type ConsentValue = (typeof CONSENT_VALUES)[number];

/** Consent as Google's consent mode names it: using the person's data for ads, and personalising ads. */
export const consentSchema = z
  .object({
    adUserData: z.enum(CONSENT_VALUES, "'granted' or 'denied'").optional(),
    adPersonalization: z.enum(CONSENT_VALUES, "'granted' or 'denied'").optional(),
  })
  .strict();
export type Consent = z.infer<typeof consentSchema>;

/** An identifier the event had but does not send, and why (the delivery log shows it); `platforms` limits it to some. */
export const withheldSchema = z.object({
  field: z.string().max(40),
  reason: z.string().max(300),
  platforms: z.array(z.string().max(40)).max(10).optional(),
});
export type Withheld = z.infer<typeof withheldSchema>;

/** The earliest event time we take: Unix 0 (1970-01-01), what every platform's time field can hold. */
export const EARLIEST_EVENT_SECONDS = 0;

export const conversionEventSchema = z.object({
  /** The caller's id, else derived from the payload: the platforms' dedup key and ours. */
  id: z.string().min(1).max(100),
  /** The event name the source gave ("Lead", "Purchase", "Form Submitted"). */
  name: z.string().min(1).max(100),
  /** When it happened, Unix seconds. */
  time: z.number().int().min(EARLIEST_EVENT_SECONDS),
  value: z.number().nonnegative().nullable(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .nullable(),
  /**
   * Hashed identifiers (SHA-256 hex of the value normalised by each platform's rule, docs/MATCH_KEYS.md).
   * `email`, `phone`, names and the address parts are in Meta's form; `emailGoogle` (Google's Gmail
   * form, only when it differs) and `phoneE164` (E.164 with its +, Google and Microsoft) are the others.
   * A value the caller hashed already fills every form as it came.
   */
  user: z.object({
    email: sha256Hex.optional(),
    emailGoogle: sha256Hex.optional(),
    phone: sha256Hex.optional(),
    phoneE164: sha256Hex.optional(),
    firstName: sha256Hex.optional(),
    lastName: sha256Hex.optional(),
    externalId: sha256Hex.optional(),
    city: sha256Hex.optional(),
    state: sha256Hex.optional(),
    postalCode: sha256Hex.optional(),
    countryCode: sha256Hex.optional(),
    dateOfBirth: sha256Hex.optional(),
    gender: sha256Hex.optional(),
  }),
  /**
   * Google's address identifier takes its region and postal code in clear (its protos say so): kept
   * only when the first and last name, the country and the postal code were all given.
   */
  address: z
    .object({
      regionCode: z.string().regex(/^[A-Z]{2}$/),
      postalCode: z.string().min(1).max(20),
    })
    .optional(),
  /** What the person consented to (absent: not set). */
  consent: consentSchema.optional(),
  /** Meta's Limited Data Use (data_processing_options LDU). */
  limitedDataUse: z.boolean().optional(),
  /** Identifiers given but not sent, with the reason the delivery log shows. */
  withheld: z.array(withheldSchema).max(20).optional(),
  /** Click ids and browser ids, never hashed. */
  clickIds: z.object({
    gclid: z.string().max(200).optional(),
    gbraid: z.string().max(200).optional(),
    wbraid: z.string().max(200).optional(),
    fbc: z.string().max(700).optional(),
    fbp: z.string().max(500).optional(),
    msclkid: z.string().max(200).optional(),
    /** LinkedIn's first-party ad click id (li_fat_id), sent as LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID. */
    li_fat_id: z.string().max(200).optional(),
    /** TikTok's click id (ttclid, from the landing URL) and its pixel's browser id (the _ttp cookie). */
    ttclid: z.string().max(500).optional(),
    ttp: z.string().max(500).optional(),
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
    phone_e164_sha256: user.phoneE164,
    first_name_sha256: user.firstName,
    last_name_sha256: user.lastName,
    external_id_sha256: user.externalId,
    city_sha256: user.city,
    state_sha256: user.state,
    postal_code_sha256: user.postalCode,
    country_code_sha256: user.countryCode,
    date_of_birth_sha256: user.dateOfBirth,
    gender_sha256: user.gender,
    gclid: clickIds.gclid,
    gbraid: clickIds.gbraid,
    wbraid: clickIds.wbraid,
    fbc: clickIds.fbc,
    fbp: clickIds.fbp,
    msclkid: clickIds.msclkid,
    li_fat_id: clickIds.li_fat_id,
    ttclid: clickIds.ttclid,
    ttp: clickIds.ttp,
  };
}

/**
 * What one row looked like on the wire and what the platform answered for it (the delivery log's
 * per-row debugger): the event as sent (identifiers hashed, as they left), and the platform's answer
 * that concerns it (Meta's response, Data Manager's error, Microsoft's PartialErrors for its index).
 */
export interface RowExchange {
  sent?: unknown;
  /** What the platform answered about this row alone (a refusal naming it). */
  answer?: unknown;
  /**
   * The platform's answer to the whole call (Meta's events_received and fbtrace_id, Data Manager's
   * requestId): the same object for every row of the call, kept once per delivery record.
   */
  requestAnswer?: unknown;
}

/** What became of one event at one target, in words a marketer reads in the delivery log. */
export type RowOutcome = (
  | { id: string; status: 'delivered' }
  /** The platform refused this row (its reason, e.g. "older than 7 days"). */
  | { id: string; status: 'rejected'; reason: string }
  /** We did not send it: the platform would refuse it (e.g. no identifier it can match). */
  | { id: string; status: 'not_sent'; reason: string }
) & { exchange?: RowExchange };
