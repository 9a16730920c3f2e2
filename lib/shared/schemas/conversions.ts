import { z } from 'zod';
import { IDENTIFIERS } from '@/lib/shared/conversions/conversion';
import { documentIdSchema } from '@/lib/shared/schemas/ids';

/**
 * What the conversion routes accept (the handlers parse with these; the forms load them after the
 * page is shown, so zod is not part of a page's first load).
 */

const mappingSchema = z.object({
  events: z.array(z.string().trim().min(1, 'Empty').max(100, 'At most 100 characters')).max(50, 'At most 50 event names'),
  value: z.discriminatedUnion('mode', [
    z.object({ mode: z.literal('event') }),
    z.object({
      mode: z.literal('fixed'),
      amount: z.number('A number').nonnegative('Not negative').max(1e9, 'At most 1,000,000,000'),
      currency: z.string().regex(/^[A-Z]{3}$/, 'A three-letter currency code, e.g. USD'),
    }),
  ]),
  identifiers: z.array(z.enum(IDENTIFIERS)).min(1, 'Send at least one identifier'),
});

const sourceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('app'), appId: documentIdSchema }),
  z.object({ type: z.literal('payments'), paymentId: documentIdSchema }),
]);

export const createConversionSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the conversion').max(100, 'At most 100 characters'),
    source: sourceSchema,
    destination: z.object({ destinationId: documentIdSchema, accountId: z.string().trim().min(1, 'Pick an account').max(100), targetId: z.string().trim().min(1, 'Pick a target').max(100) }),
    mapping: mappingSchema,
  })
  .strict();

export type CreateConversionInput = z.infer<typeof createConversionSchema>;

export const updateConversionSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the conversion').max(100, 'At most 100 characters').optional(),
    mapping: mappingSchema.optional(),
    status: z.enum(['active', 'paused']).optional(),
  })
  .strict();

export type UpdateConversionInput = z.infer<typeof updateConversionSchema>;
