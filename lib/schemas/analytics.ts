import { z } from 'zod';
import { ANALYTICS_EVENTS } from '@/lib/analytics/events';
import { documentIdSchema } from '@/lib/schemas/organization';

/**
 * Events the browser is the one to know about. Everything else is sent by the server at the moment
 * it happens, so no client can claim it.
 */
export const CLIENT_REPORTED_EVENTS = [ANALYTICS_EVENTS.errorReceived, ANALYTICS_EVENTS.planSelected] as const;

const userIdSchema = z.string().min(1, 'Required').max(128);

export const identifySchema = z.object({
  userId: userIdSchema,
  traits: z.object({
    user_id: userIdSchema,
    email: z.email().transform((email) => email.toLowerCase()),
    name: z.string().trim().max(200).default(''),
    org_id: documentIdSchema.optional(),
  }),
});

export const trackSchema = z.object({
  userId: userIdSchema,
  eventName: z.enum(CLIENT_REPORTED_EVENTS),
  properties: z
    .record(z.string().max(64), z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]))
    .refine((properties) => Object.keys(properties).length <= 30, 'At most 30 properties')
    .default({}),
});

export const identifyWithOrganizationSchema = z.object({ userId: userIdSchema, organizationId: documentIdSchema });

export const intercomHashSchema = z.object({ userId: userIdSchema });
