import { planOf } from '@/lib/shared/billing/entitlements';
import { issuesToFieldErrors } from '@/lib/shared/fieldErrors';
import { tooManySubmissionsMessage } from '@/lib/shared/rateLimitMessages';
import {
  MAX_EVENTS_PER_REQUEST,
  submittedEventSchema,
  unknownFieldsOf,
  type NotSentWarning,
  type SubmissionWarning,
  type SubmittedEvent,
} from '@/lib/shared/schemas/submissions';
import { PLATFORM_LABELS, type AdPlatform } from '@/lib/shared/integrations/platforms';
import {
  MAX_SUBMISSION_BYTES,
  SUBMISSION_MESSAGES,
  SUBMITTED_FIELD_DOCS,
  type SubmittedFieldName,
} from '@/lib/shared/schemas/submissionFields';

/**
 * The contract of POST /api/submissions as the custom-submission page shows it, read off the schema
 * the route validates with: the fields, the limits, and answers computed by that schema (a unit test
 * keeps the examples valid), so the page cannot drift from what the server does.
 */

export interface ContractField {
  name: string;
  type: string;
  required: boolean;
  meaning: string;
}

/** Every field of an event, in the schema's order, with its description off the schema. */
export function contractFields(): ContractField[] {
  return Object.entries(submittedEventSchema.shape).map(([name, schema]) => ({
    name,
    type: SUBMITTED_FIELD_DOCS[name as SubmittedFieldName].type,
    required: !schema.safeParse(undefined).success,
    meaning: schema.description ?? '',
  }));
}

/** The 429 example's numbers: the Growth plan's rate, and a wait the caller reads in Retry-After. */
export const EXAMPLE_PLAN = planOf('growth')!;
export const EXAMPLE_RETRY_AFTER = 12;

/**
 * A complete website event: the page it happened on with the visitor's browser user agent and address (from a
 * server, pass the browser's own), an email and phone, the ad click, and consent. Every ad platform's check
 * passes it (Microsoft's only with its own click id, msclkid); a unit test runs it through them.
 */
export const EXAMPLE_EVENT = {
  event: 'Lead',
  eventId: 'lead-1042',
  occurredAt: '2026-11-23T10:00:00Z',
  email: 'ada@example.com',
  phone: '+1 415 555 0100',
  gclid: 'Cj0KCQiA-example',
  fbp: 'fb.1.1732355000000.1234567890',
  pageUrl: 'https://www.example.com/thank-you',
  userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
  ip: '203.0.113.7',
  value: 40,
  currency: 'USD',
  consent: { adUserData: 'granted', adPersonalization: 'granted' },
} satisfies SubmittedEvent;

/** When the examples are sent: a minute after EXAMPLE_EVENT happened (the platforms' age limits count from here). */
export const EXAMPLE_NOW = '2026-11-23T10:01:00Z';

/**
 * What each ad platform will not take, in the words of the reference page, each with an event that shows it:
 * a unit test runs every example through the platform's own check (the one the delivery and the 202's warnings
 * use), so the page cannot promise what the platforms refuse.
 */
export const NOT_TAKEN: Array<{ platform: AdPlatform; when: string; example: SubmittedEvent }> = [
  {
    platform: 'meta_ads',
    when: 'no email, phone, externalId, fbc / fbp, or ip with userAgent',
    example: { event: 'Lead', gclid: 'Cj0KCQiA-example' },
  },
  {
    platform: 'meta_ads',
    when: 'a website event (one with a pageUrl) without the visitor’s userAgent',
    example: { event: 'Lead', email: 'ada@example.com', pageUrl: 'https://www.example.com/thank-you' },
  },
  {
    platform: 'meta_ads',
    when: 'consent.adUserData is denied (Meta cannot carry consent)',
    example: { ...EXAMPLE_EVENT, consent: { adUserData: 'denied' } },
  },
  { platform: 'meta_ads', when: 'older than 7 days', example: { ...EXAMPLE_EVENT, occurredAt: '2026-11-10T10:00:00Z' } },
  {
    platform: 'google_ads',
    when: 'no gclid, gbraid, wbraid, email, phone with its country, or full address (first and last name, country, postal code)',
    example: { event: 'Lead', fbp: 'fb.1.1732355000000.1234567890' },
  },
  { platform: 'google_ads', when: 'older than 90 days', example: { ...EXAMPLE_EVENT, occurredAt: '2026-08-01T10:00:00Z' } },
  { platform: 'microsoft_ads', when: 'no msclkid (Microsoft matches by its click only)', example: EXAMPLE_EVENT },
  {
    platform: 'microsoft_ads',
    when: 'consent.adUserData is denied (Microsoft cannot carry consent)',
    example: { ...EXAMPLE_EVENT, msclkid: 'b0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5', consent: { adUserData: 'denied' } },
  },
  {
    platform: 'microsoft_ads',
    when: 'older than 90 days',
    example: { ...EXAMPLE_EVENT, msclkid: 'b0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5', occurredAt: '2026-08-01T10:00:00Z' },
  },
  {
    platform: 'linkedin_ads',
    when: 'no email or li_fat_id (LinkedIn matches a member by one of them)',
    example: { event: 'Lead', gclid: 'Cj0KCQiA-example' },
  },
  {
    platform: 'linkedin_ads',
    when: 'consent.adUserData is denied (LinkedIn cannot carry consent)',
    example: { ...EXAMPLE_EVENT, consent: { adUserData: 'denied' } },
  },
  { platform: 'linkedin_ads', when: 'older than 90 days', example: { ...EXAMPLE_EVENT, occurredAt: '2026-08-01T10:00:00Z' } },
];

/** The website event of NOT_TAKEN without its user agent, and the warning its 202 carries from a Meta conversion. */
export const EXAMPLE_NO_USER_AGENT = NOT_TAKEN[1]!.example;
export const EXAMPLE_NOT_SENT: NotSentWarning = {
  conversion: { id: 'Q1w2E3r4T5y6U7i8O9p0', name: 'Website leads' },
  platform: 'meta_ads',
  reason: "Website event without the browser's user agent: Meta requires it for website events",
  message: `Accepted, but not sent to ${PLATFORM_LABELS.meta_ads}: Website event without the browser's user agent: Meta requires it for website events`,
};

export const EXAMPLE_BATCH = {
  events: [
    EXAMPLE_EVENT,
    { event: 'Purchase', eventId: 'order-5531', email: 'grace@example.com', fbclid: 'IwAR-example', value: 129.9, currency: 'EUR' },
  ] satisfies SubmittedEvent[],
};

/** An event the schema refuses: an email that is none, and a value without its currency. */
export const EXAMPLE_INVALID = { event: 'Lead', email: 'ada@', value: 40 };

/** An event with a field we do not know: taken, with a warning. */
export const EXAMPLE_UNKNOWN_FIELD = { event: 'Lead', email: 'ada@example.com', coupon: 'WINTER' };

/** The field errors the schema gives an event, as the 400 names them. */
export function fieldErrorsOfEvent(event: unknown): Record<string, string[]> {
  return issuesToFieldErrors(submittedEventSchema.safeParse(event).error?.issues ?? []);
}

export const warningsOf = (event: unknown): SubmissionWarning[] => unknownFieldsOf(event);

export const LIMITS = { events: MAX_EVENTS_PER_REQUEST, bytes: MAX_SUBMISSION_BYTES };

/** The answers, each as the status line, headers and JSON body a client reads. */
export function contractAnswers(): Array<{ title: string; when: string; answer: string }> {
  const json = (body: unknown) => JSON.stringify(body, null, 2);
  const EVENT_ID = 'lead-1042';
  return [
    {
      title: '202 Accepted: one event',
      when: 'The event is queued for every conversion of this app. warnings names fields we do not know (ignored, never stored), and the conversions that will not send the event (below).',
      answer: `HTTP/1.1 202 Accepted\n\n${json({ success: true, id: EVENT_ID, warnings: warningsOf(EXAMPLE_UNKNOWN_FIELD) })}`,
    },
    {
      title: '202 Accepted: not sent by a conversion',
      when: 'The event is queued and logged, but a conversion of this app will not send it (here a website event without userAgent, to Meta): warnings names the conversion, its platform and the reason, as its delivery log will.',
      answer: `HTTP/1.1 202 Accepted\n\n${json({ success: true, id: 'sb_0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f', warnings: [EXAMPLE_NOT_SENT] })}`,
    },
    {
      title: '202 Accepted: a batch',
      when: 'Each event is answered at its index: its id, or its own error (here the second event’s). The valid ones are queued even when others are not.',
      answer: `HTTP/1.1 202 Accepted\n\n${json({
        success: true,
        accepted: 1,
        results: [
          { index: 0, id: EVENT_ID },
          { index: 1, error: { code: 'invalid', fieldErrors: fieldErrorsOfEvent(EXAMPLE_INVALID) } },
        ],
      })}`,
    },
    {
      title: '400 Bad Request',
      when: 'A field of the wrong type or form (in a batch: only when no event is valid, keyed events.{index}.{field}), or a body that is no JSON object. Nothing is queued.',
      answer: `HTTP/1.1 400 Bad Request\n\n${json({
        success: false,
        code: 'invalid',
        message: SUBMISSION_MESSAGES.invalid,
        fieldErrors: fieldErrorsOfEvent(EXAMPLE_INVALID),
      })}`,
    },
    {
      title: '401 Unauthorized',
      when: 'No key, an unknown or revoked key, or a secret key sent in the URL (code secret_key_in_url: replace that key).',
      answer: `HTTP/1.1 401 Unauthorized\n\n${json({ success: false, code: 'invalid_key', message: SUBMISSION_MESSAGES.invalidKey })}`,
    },
    {
      title: '413 Content Too Large',
      when: `The body is over ${MAX_SUBMISSION_BYTES / 1024 / 1024} MB.`,
      answer: `HTTP/1.1 413 Content Too Large\n\n${json({ success: false, code: 'body_too_large', message: SUBMISSION_MESSAGES.tooLarge })}`,
    },
    {
      title: '429 Too Many Requests',
      when: 'Over the key’s rate limit: wait the seconds in Retry-After, then send again (the same eventId is the same event).',
      answer: `HTTP/1.1 429 Too Many Requests\nRetry-After: ${EXAMPLE_RETRY_AFTER}\n\n${json({
        success: false,
        code: 'rate_limited',
        message: tooManySubmissionsMessage('key', EXAMPLE_PLAN.ingestEventsPerSecond, EXAMPLE_RETRY_AFTER),
      })}`,
    },
  ];
}
