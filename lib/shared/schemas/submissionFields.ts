/**
 * What each field of a submitted event means: the schema in `submissions.ts` attaches these with
 * `.describe()`, and the custom-submission page reads them back off the schema. Kept free of zod so
 * the server and the page share one text without either carrying the other's code.
 */
export interface SubmittedFieldDoc {
  /** The form of the value, as a caller writes it. */
  type: string;
  meaning: string;
}

export const SUBMITTED_FIELD_DOCS = {
  event: { type: 'text ≤ 100, required', meaning: 'The event name a conversion takes, e.g. "Lead" or "Purchase".' },
  eventId: {
    type: 'letters, digits, . _ : @ - ≤ 100',
    meaning: 'Your id for this event: a retry with the same id is the same event. Without one it is derived from the content.',
  },
  occurredAt: { type: 'ISO 8601 date-time from 1970-01-01 on', meaning: 'When it happened. Default: when we receive it.' },
  email: { type: 'an email, or its SHA-256 (64 hex)', meaning: 'The person’s email address; hashed before it is kept.' },
  phone: {
    type: 'text ≤ 64, or its SHA-256',
    meaning: 'Read with its +/00 country, else the one in countryCode, else the app’s default country.',
  },
  firstName: { type: 'text ≤ 100, or its SHA-256', meaning: 'First name.' },
  lastName: { type: 'text ≤ 100, or its SHA-256', meaning: 'Last name.' },
  externalId: { type: 'text ≤ 200, clear or SHA-256', meaning: 'Your own id of the person (a customer number).' },
  city: { type: 'text ≤ 100, or its SHA-256', meaning: 'City.' },
  state: { type: 'text ≤ 100, or its SHA-256', meaning: 'State or region.' },
  postalCode: { type: 'text ≤ 64, or its SHA-256', meaning: 'Postal code.' },
  countryCode: { type: 'ISO 3166-1 alpha-2 (US), or its SHA-256', meaning: 'Country of the person.' },
  dateOfBirth: { type: 'YYYY-MM-DD from 1900 on, or its SHA-256', meaning: 'Date of birth.' },
  gender: { type: "'f' or 'm', or its SHA-256", meaning: 'Gender.' },
  consent: {
    type: "{ adUserData?, adPersonalization? }: 'granted' or 'denied'",
    meaning: 'The person’s ad consent. A question left out takes the app’s default.',
  },
  limitedDataUse: { type: 'true or false', meaning: 'Meta’s Limited Data Use (sent as data_processing_options ["LDU"]).' },
  value: { type: 'number ≥ 0, with currency', meaning: 'What the conversion is worth.' },
  currency: { type: 'ISO 4217 (USD, EUR …)', meaning: 'The currency of value; required with value.' },
  gclid: { type: 'text ≤ 200', meaning: 'Google click id.' },
  gbraid: { type: 'text ≤ 200', meaning: 'Google click id of an iOS app campaign.' },
  wbraid: { type: 'text ≤ 200', meaning: 'Google click id of an iOS web campaign.' },
  fbclid: { type: 'text ≤ 500', meaning: 'Meta click id from the landing URL.' },
  fbc: { type: 'text ≤ 500', meaning: 'Meta click cookie (_fbc).' },
  fbp: { type: 'text ≤ 500', meaning: 'Meta browser cookie (_fbp).' },
  msclkid: { type: 'text ≤ 200', meaning: 'Microsoft click id.' },
  li_fat_id: { type: 'text ≤ 200', meaning: 'LinkedIn click id (the li_fat_id of the landing URL).' },
  ttclid: { type: 'text ≤ 500', meaning: 'TikTok click id from the landing URL.' },
  ttp: { type: 'text ≤ 500', meaning: 'TikTok browser cookie (_ttp).' },
  pageUrl: {
    type: 'text ≤ 2,000',
    meaning: 'The page of the conversion. Personal-looking query parameters, the fragment and any user:password are dropped.',
  },
  ip: { type: 'IPv4 or IPv6', meaning: 'The person’s IP address (not your server’s).' },
  userAgent: { type: 'text ≤ 1,000', meaning: 'The person’s browser user agent.' },
  actionSource: {
    type: "'website' or 'system_generated'",
    meaning:
      "Where the conversion happened: 'website' for a visitor on your site, 'system_generated' for an event your server makes on its own (a payment, a CRM stage).",
  },
} as const satisfies Record<string, SubmittedFieldDoc>;

export type SubmittedFieldName = keyof typeof SUBMITTED_FIELD_DOCS;

/** The schema's description of a field: its meaning. */
export const describeField = (field: SubmittedFieldName) => SUBMITTED_FIELD_DOCS[field].meaning;

/** What a request may carry: 500 events are far below it. */
export const MAX_SUBMISSION_BYTES = 1024 * 1024;

/** The answers of POST /api/submissions the page shows and the route sends: one text for both. */
export const SUBMISSION_MESSAGES = {
  invalidKey: 'Send a valid submission key as Authorization: Bearer sbk_… (or ?key=sbp_… from your website).',
  tooLarge: 'The request body is over 1 MB: send at most 500 events a request.',
  invalid: 'Some fields are missing or invalid.',
} as const;
