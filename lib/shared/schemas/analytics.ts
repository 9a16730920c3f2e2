import { z } from 'zod';
import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { documentIdSchema } from '@/lib/shared/schemas/ids';

/**
 * Events the browser is the one to know about. Everything else is sent by the server at the moment
 * it happens, so no client can claim it.
 */
export const CLIENT_REPORTED_EVENTS = [ANALYTICS_EVENTS.errorReceived, ANALYTICS_EVENTS.planSelected] as const;

export const identifySchema = z.object({
  userId: documentIdSchema,
  traits: z.object({
    user_id: documentIdSchema,
    email: z.email().transform((email) => email.toLowerCase()),
    name: z.string().trim().max(200).default(''),
    org_id: documentIdSchema.optional(),
  }),
});

export const trackSchema = z.object({
  userId: documentIdSchema,
  eventName: z.enum(CLIENT_REPORTED_EVENTS),
  properties: z
    .record(z.string().max(64), z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]))
    .refine((properties) => Object.keys(properties).length <= 30, 'At most 30 properties')
    // org_id names an organization the server looks up: the one id rule applies.
    .refine((properties) => properties.org_id == null || documentIdSchema.safeParse(properties.org_id).success, {
      message: 'Not a valid id',
      path: ['org_id'],
    })
    .default({}),
});

export const identifyWithOrganizationSchema = z.object({ userId: documentIdSchema, organizationId: documentIdSchema });

export const intercomHashSchema = z.object({ userId: documentIdSchema });
