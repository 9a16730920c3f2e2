import { z } from 'zod';
import { consentSchema } from '@/lib/shared/conversions/event';
import {
  CUSTOM_FIELD_KEYS,
  GTM_MESSAGE,
  isGtmContainerId,
  PAYLOAD_CHARACTERS_MESSAGE,
  PAYLOAD_HOST_MESSAGE,
  payloadUrlHasBadCharacters,
  payloadUrlHasHost,
  type CustomFieldKey,
} from '@/lib/shared/integrations/apps';
import { AD_PLATFORMS, MIXPANEL_RESIDENCIES } from '@/lib/shared/integrations/platforms';
import { documentIdSchema, objectRouteSchema } from '@/lib/shared/schemas/ids';

/** POST /api/orgs/{orgId}/integrations/reuse: a destination on the login of one of the organization's sources. */
export const reuseLoginSchema = z.object({
  fromId: documentIdSchema,
  kind: z.literal('destination'),
});

export const updateIntegrationSchema = z
  .object({
    name: z.string().trim().min(1, 'Enter a name').max(100, 'At most 100 characters').optional(),
    accountIds: z.array(z.string().trim().min(1).max(64)).max(500, 'At most 500 accounts').optional(),
    /** Confirms taking unticked accounts out of the source's connections that use them. */
    removeFromConnections: z.boolean().optional(),
  })
  .refine((body) => body.name !== undefined || body.accountIds !== undefined, 'Nothing to change');

const nameSchema = z.string().trim().min(1, 'Enter a name').max(100, 'At most 100 characters');

export const mixpanelCredentialsSchema = z.object({
  platform: z.literal('mixpanel'),
  name: nameSchema,
  username: z.string().trim().min(1, 'Enter the service account username').max(200),
  secret: z.string().trim().min(1, 'Enter the service account secret').max(200),
  projectId: z
    .string()
    .trim()
    .regex(/^\d{1,12}$/, 'A Mixpanel project id is a number'),
  residency: z.enum(MIXPANEL_RESIDENCIES),
});

export const bigQueryKeySchema = z.object({
  platform: z.literal('bigquery'),
  name: nameSchema,
  /** The service-account JSON key file, as text. */
  serviceAccountKey: z.string().trim().min(1, 'Paste the JSON key file').max(20_000),
});

export const createDestinationSchema = z.discriminatedUnion('platform', [mixpanelCredentialsSchema, bigQueryKeySchema]);

/** ISO 3166-1 alpha-2 (US, GB, DE …), kept uppercase. */
export const countryCodeSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, 'A two-letter country code, e.g. US')
  .transform((value) => value.toUpperCase());

/** A source's default country: a code, or null to have none. */
export const defaultCountrySchema = countryCodeSchema.nullable();

export const createPaymentSchema = z.object({
  name: nameSchema,
  apiKey: z
    .string()
    .trim()
    .min(1, 'Enter a restricted API key')
    .max(300)
    .refine((key) => !/^sk_/.test(key), 'Use a restricted key (rk_…), never your secret key')
    .refine((key) => /^rk_(test|live)_[A-Za-z0-9]+$/.test(key), 'A restricted key starts with rk_test_ or rk_live_'),
  defaultCountry: defaultCountrySchema.optional(),
});

export const updatePaymentSchema = z
  .object({
    name: nameSchema.optional(),
    defaultCountry: defaultCountrySchema.optional(),
  })
  .strict();

const payloadUrlSchema = z
  .string()
  .trim()
  .min(1, 'Enter a path')
  .max(500, 'At most 500 characters')
  .refine((url) => !payloadUrlHasHost(url), PAYLOAD_HOST_MESSAGE)
  .refine((url) => payloadUrlHasHost(url) || url.startsWith('/'), 'A thank-you page path starts with /')
  .refine((url) => !payloadUrlHasBadCharacters(url), PAYLOAD_CHARACTERS_MESSAGE);

/** A source's default consent: each question granted, denied or left out ("not set"). */
export const defaultConsentSchema = consentSchema;

/** The names of the customer's own form fields: no quotes, angle brackets or whitespace (they go into the snippet). */
const formFieldName = z
  .string()
  .trim()
  .min(1, 'Enter a field name')
  .max(100, 'At most 100 characters')
  .regex(/^[^<>"'`\\\s]+$/, 'A field name or id, without quotes, angle brackets, backslashes or spaces');
export const customFieldsSchema = z
  .object(
    Object.fromEntries(CUSTOM_FIELD_KEYS.map((key) => [key, formFieldName.optional()])) as Record<
      CustomFieldKey,
      z.ZodOptional<typeof formFieldName>
    >,
  )
  .strict();

export const appFieldsSchema = z.object({
  name: nameSchema,
  websiteUrl: z
    .string()
    .trim()
    .max(500)
    .refine((value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'https:' || url.protocol === 'http:';
      } catch {
        return false;
      }
    }, 'Enter the website address, like https://example.com'),
  // Optional: most shops have no Tag Manager. Empty or null is none (an edit that empties it removes it).
  gtmContainerId: z
    .string()
    .trim()
    .refine((value) => value === '' || isGtmContainerId(value), GTM_MESSAGE)
    .transform((value) => value || null)
    .nullable()
    .optional(),
  payloadUrls: z.array(payloadUrlSchema).max(50, 'At most 50 payload URLs').default([]),
  defaultCountry: defaultCountrySchema.optional(),
  defaultConsent: defaultConsentSchema.optional(),
  customFields: customFieldsSchema.optional(),
});

export const updateAppSchema = appFieldsSchema.partial();

export const appTargetSchema = z.object({
  platform: z.enum(AD_PLATFORMS),
  destinationId: documentIdSchema,
  accountId: z.string().trim().min(1, 'Pick an account').max(64),
  targetId: z.string().trim().min(1, 'Pick one').max(128),
});

export const appWarehouseSchema = z.object({
  platform: z.enum(['bigquery', 'mixpanel']),
  destinationId: documentIdSchema.nullable(),
});

export const targetsQuerySchema = objectRouteSchema.extend({ accountId: z.string().trim().min(1).max(64) });
