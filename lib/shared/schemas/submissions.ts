import { z } from 'zod';
import type { ConversionPlatform } from '@/lib/shared/conversions/conversion';
import { consentSchema } from '@/lib/shared/conversions/event';
import { describeField } from '@/lib/shared/schemas/submissionFields';

/**
 * One event sent to POST /api/submissions (a form sent, a sign-up, a purchase). Personal fields
 * may come in clear or already SHA-256 hashed; the server hashes them before anything is kept.
 */
export const MAX_EVENTS_PER_REQUEST = 500;
/** The longest user agent kept (the queue's limit too). */
export const MAX_USER_AGENT = 1000;

const text = (max: number, notText = 'Text, in quotes') => z.string(notText).trim().min(1, 'Empty').max(max, `At most ${max} characters`);
const SHA256 = /^[0-9a-fA-F]{64}$/;
/** Made once: a zod schema is costly to build, and every submitted email is checked with it. */
const emailSchema = z.email();
/** A value in a fixed form, or its SHA-256 hash (64 hex). */
const formOrHash = (form: RegExp, message: string) =>
  z
    .string()
    .trim()
    .refine((value) => form.test(value) || SHA256.test(value), `${message} (or its SHA-256 hash)`);

/** A calendar date YYYY-MM-DD that exists (no 2025-02-30). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

export const submittedEventSchema = z
  .object({
    event: text(100, 'Name the event, e.g. "Lead"').describe(describeField('event')),
    /** Your id for this event: a retry with the same id is the same event. */
    eventId: z
      .string()
      .trim()
      .min(1, 'Empty')
      .max(100, 'At most 100 characters')
      .regex(/^[\w.:@-]+$/, 'Letters, digits and . _ : @ - only')
      .optional()
      .describe(describeField('eventId')),
    occurredAt: z.iso
      .datetime({ offset: true, message: 'An ISO 8601 date-time, e.g. 2026-11-23T10:00:00Z' })
      // Unix time starts in 1970: the queue, the platforms and the log all count from there.
      .refine((value) => Date.parse(value) >= 0, 'A date-time from 1970-01-01 on')
      .optional()
      .describe(describeField('occurredAt')),
    email: z.string().trim().max(320, 'At most 320 characters').optional().describe(describeField('email')),
    phone: text(64).optional().describe(describeField('phone')),
    firstName: text(100).optional().describe(describeField('firstName')),
    lastName: text(100).optional().describe(describeField('lastName')),
    externalId: text(200).optional().describe(describeField('externalId')),
    city: text(100).optional().describe(describeField('city')),
    state: text(100).optional().describe(describeField('state')),
    postalCode: text(64).optional().describe(describeField('postalCode')),
    /** ISO 3166-1 alpha-2 (US, GB, DE …). */
    countryCode: formOrHash(/^[A-Za-z]{2}$/, 'A two-letter country code, e.g. US')
      .optional()
      .describe(describeField('countryCode')),
    dateOfBirth: z
      .string()
      .trim()
      .refine((value) => SHA256.test(value) || (isCalendarDate(value) && value >= '1900-01-01'), 'A date YYYY-MM-DD (or its SHA-256 hash)')
      .optional()
      .describe(describeField('dateOfBirth')),
    gender: formOrHash(/^[fmFM]$/, "'f' or 'm'")
      .optional()
      .describe(describeField('gender')),
    consent: consentSchema.optional().describe(describeField('consent')),
    /** Meta's Limited Data Use: sent with data_processing_options ["LDU"]. */
    limitedDataUse: z.boolean('true or false').optional().describe(describeField('limitedDataUse')),
    value: z.number('A number').nonnegative('Not negative').max(1e9, 'At most 1,000,000,000').optional().describe(describeField('value')),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'A three-letter currency code, e.g. USD')
      .optional()
      .describe(describeField('currency')),
    gclid: text(200).optional().describe(describeField('gclid')),
    gbraid: text(200).optional().describe(describeField('gbraid')),
    wbraid: text(200).optional().describe(describeField('wbraid')),
    fbclid: text(500).optional().describe(describeField('fbclid')),
    fbc: text(500).optional().describe(describeField('fbc')),
    fbp: text(500).optional().describe(describeField('fbp')),
    msclkid: text(200).optional().describe(describeField('msclkid')),
    li_fat_id: text(200).optional().describe(describeField('li_fat_id')),
    ttclid: text(500).optional().describe(describeField('ttclid')),
    ttp: text(500).optional().describe(describeField('ttp')),
    pageUrl: z.string().trim().max(2000, 'At most 2,000 characters').optional().describe(describeField('pageUrl')),
    ip: z.union([z.ipv4(), z.ipv6()], 'An IP address').optional().describe(describeField('ip')),
    userAgent: z.string().max(MAX_USER_AGENT, 'At most 1,000 characters').optional().describe(describeField('userAgent')),
    actionSource: z.enum(['website', 'system_generated']).optional().describe(describeField('actionSource')),
  })
  .superRefine((event, ctx) => {
    if (event.email !== undefined && !SHA256.test(event.email) && !emailSchema.safeParse(event.email).success) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'Not an email address (or its SHA-256 hash)' });
    }
    if (event.value !== undefined && event.currency === undefined) {
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'Give the currency of the value' });
    }
  });

export type SubmittedEvent = z.infer<typeof submittedEventSchema>;

/** The fields an event may have: any other is ignored and named in the answer's warnings. */
export const SUBMITTED_FIELDS: ReadonlySet<string> = new Set(Object.keys(submittedEventSchema.shape));

/** A field of a submitted event we do not know: ignored, never stored, named in the 202 answer. */
export interface UnknownFieldWarning {
  field: string;
  message: string;
}

/**
 * A conversion the event goes to whose platform will not take it (no identifier it matches by, a website event
 * without the browser's user agent, ad user data denied …): the event is accepted all the same, and that
 * conversion's delivery log shows it not sent with the same reason.
 */
export interface NotSentWarning {
  conversion: { id: string; name: string };
  platform: ConversionPlatform;
  /** The delivery log's words. */
  reason: string;
  message: string;
}

export type SubmissionWarning = UnknownFieldWarning | NotSentWarning;

export function unknownFieldsOf(item: unknown): UnknownFieldWarning[] {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return [];
  return Object.keys(item)
    .filter((field) => !SUBMITTED_FIELDS.has(field))
    .slice(0, 20)
    .map((field) => ({ field: field.slice(0, 100), message: 'Unknown field: ignored, not stored' }));
}

export const submissionBatchSchema = z
  .object({
    events: z
      .array(z.unknown())
      .min(1, 'Send at least one event')
      .max(MAX_EVENTS_PER_REQUEST, `At most ${MAX_EVENTS_PER_REQUEST} events per request`),
  })
  .strict();
