import { z } from 'zod';
import { PLAN_IDS } from '@/lib/shared/billing/plans';
import { documentIdSchema } from '@/lib/shared/schemas/organization';

export const billingCustomerSchema = z.object({
  email: z.email().transform((email) => email.toLowerCase()),
  organizationId: documentIdSchema,
  userId: documentIdSchema,
});

export const checkoutSchema = z.object({ organizationId: documentIdSchema, plan: z.enum(PLAN_IDS) });
export const portalSchema = z.object({ organizationId: documentIdSchema });

/** Whether a value is a Stripe id of the given kind (`cus`, `sub`, `evt` …): safe to use as a document id. */
export const isStripeId = (value: unknown, prefix: string): value is string =>
  typeof value === 'string' && value.length <= 255 && new RegExp(`^${prefix}_[A-Za-z0-9_-]+$`).test(value);

/** GET {billing api}/billing/session-validity/{a}/{b}: a = organization id, b = Checkout Session id. */
export const sessionValidityQuerySchema = z.object({
  a: documentIdSchema,
  b: z.string().regex(/^cs_[A-Za-z0-9_]+$/, 'Not a Checkout Session id'),
});
