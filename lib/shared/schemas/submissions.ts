import { z } from 'zod';

/**
 * One event sent to POST /api/submissions (a form sent, a sign-up, a purchase). Personal fields
 * may come in clear or already SHA-256 hashed; the server hashes them before anything is kept.
 */
export const MAX_EVENTS_PER_REQUEST = 500;

const text = (max: number, notText = 'Text, in quotes') => z.string(notText).trim().min(1, 'Empty').max(max, `At most ${max} characters`);

export const submittedEventSchema = z
  .object({
    event: text(100, 'Name the event, e.g. "Lead"'),
    /** Your id for this event: a retry with the same id is the same event. */
    eventId: z
      .string()
      .trim()
      .min(1, 'Empty')
      .max(100, 'At most 100 characters')
      .regex(/^[\w.:@-]+$/, 'Letters, digits and . _ : @ - only')
      .optional(),
    occurredAt: z.iso.datetime({ offset: true, message: 'An ISO 8601 date-time, e.g. 2026-11-23T10:00:00Z' }).optional(),
    email: z.string().trim().max(320, 'At most 320 characters').optional(),
    phone: text(64).optional(),
    firstName: text(100).optional(),
    lastName: text(100).optional(),
    externalId: text(200).optional(),
    value: z.number('A number').nonnegative('Not negative').max(1e9, 'At most 1,000,000,000').optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'A three-letter currency code, e.g. USD')
      .optional(),
    gclid: text(200).optional(),
    gbraid: text(200).optional(),
    wbraid: text(200).optional(),
    fbclid: text(500).optional(),
    fbc: text(500).optional(),
    fbp: text(500).optional(),
    msclkid: text(200).optional(),
    pageUrl: z.string().trim().max(2000, 'At most 2,000 characters').optional(),
    ip: z.union([z.ipv4(), z.ipv6()], 'An IP address').optional(),
    userAgent: z.string().max(1000, 'At most 1,000 characters').optional(),
    actionSource: z.enum(['website', 'system_generated']).optional(),
  })
  .strict()
  .superRefine((event, ctx) => {
    if (event.email !== undefined && !/^[0-9a-fA-F]{64}$/.test(event.email) && !z.email().safeParse(event.email).success) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'Not an email address (or its SHA-256 hash)' });
    }
    if (event.value !== undefined && event.currency === undefined) {
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'Give the currency of the value' });
    }
  });

export type SubmittedEvent = z.infer<typeof submittedEventSchema>;

export const submissionBatchSchema = z
  .object({
    events: z
      .array(z.unknown())
      .min(1, 'Send at least one event')
      .max(MAX_EVENTS_PER_REQUEST, `At most ${MAX_EVENTS_PER_REQUEST} events per request`),
  })
  .strict();
