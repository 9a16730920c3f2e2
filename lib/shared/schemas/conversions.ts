import { z } from 'zod';
import { COLUMN_FIELDS, DEFAULT_MAXIMUM_BYTES_BILLED, IDENTIFIERS, type ColumnField } from '@/lib/shared/conversions/conversion';
import { consentSchema } from '@/lib/shared/conversions/event';
import { scheduleSchema } from '@/lib/shared/schemas/connections';
import { countryCodeSchema } from '@/lib/shared/schemas/integrations';
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

/** A BigQuery column or a Mixpanel property name (Mixpanel's start with $ or letters, may hold spaces). */
const columnName = z.string().trim().min(1, 'Name a column').max(300, 'At most 300 characters');

const columnFields = z
  .object(
    Object.fromEntries(COLUMN_FIELDS.map((field) => [field, columnName.optional()])) as Record<
      ColumnField,
      z.ZodOptional<typeof columnName>
    >,
  )
  .strict();
const columnsSchema = columnFields.refine((columns) => columns.eventTime !== undefined, {
  message: 'Map the event time',
  path: ['eventTime'],
});

const eventName = z.string().trim().min(1, 'Name the event').max(100, 'At most 100 characters');

/** BigQuery: a table or one SELECT, a cursor column, a byte limit, a schedule. */
const bigQueryFields = {
  type: z.literal('bigquery'),
  destinationId: documentIdSchema,
  projectId: z.string().trim().min(1, 'Pick a project').max(100),
  mode: z.enum(['table', 'sql']),
  table: z.string().trim().max(1024).default(''),
  sql: z.string().trim().max(100_000, 'At most 100,000 characters').default(''),
  cursorColumn: columnName,
  maximumBytesBilled: z
    .number('A number')
    .int('Whole bytes')
    .min(10_000_000, 'At least 0.01 GB (BigQuery bills at least 10 MB a query)')
    .max(10_000_000_000_000, 'At most 10,000 GB')
    .default(DEFAULT_MAXIMUM_BYTES_BILLED),
  columns: columnsSchema,
  eventName: eventName.default('Lead'),
  schedule: scheduleSchema(),
  defaultCountry: countryCodeSchema.optional(),
  defaultConsent: consentSchema.optional(),
};

function checkStatement(source: { mode: 'table' | 'sql'; table: string; sql: string }, context: z.RefinementCtx) {
  if (source.mode === 'table' && !/^[\w-]+(\.[\w-]+)?\.\w+$|^[\w-]+:[\w-]+\.\w+$/.test(source.table)) {
    context.addIssue({ code: 'custom', path: ['table'], message: 'A table as project.dataset.table' });
  }
  if (source.mode === 'sql' && !/^\s*(select|with)\b/i.test(stripComments(source.sql))) {
    context.addIssue({ code: 'custom', path: ['sql'], message: 'Only a SELECT statement can be read' });
  }
}

export const bigQuerySourceSchema = z.object(bigQueryFields).strict().superRefine(checkStatement);

/** Mixpanel: event names of the destination's project, mapped from properties, read by day. */
const mixpanelFields = {
  type: z.literal('mixpanel'),
  destinationId: documentIdSchema,
  events: z.array(eventName).min(1, 'Pick at least one event').max(20, 'At most 20 events'),
  columns: columnsSchema,
  eventName: eventName.default('Lead'),
  schedule: scheduleSchema(),
  defaultCountry: countryCodeSchema.optional(),
  defaultConsent: consentSchema.optional(),
};

export const mixpanelSourceSchema = z.object(mixpanelFields).strict();

/** SQL without its comments (to see what statement it is). */
export function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\//g, ' ');
}

const sourceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('app'), appId: documentIdSchema }),
  z.object({ type: z.literal('payments'), paymentId: documentIdSchema }),
  bigQuerySourceSchema,
  mixpanelSourceSchema,
]);

export const warehouseSourceSchema = z.discriminatedUnion('type', [bigQuerySourceSchema, mixpanelSourceSchema]);
export type WarehouseSourceInput = z.infer<typeof warehouseSourceSchema>;

/**
 * A source being set up, for its preview: what it reads must be valid, but the cursor and the event
 * time may be unmapped yet (the preview is how the user learns the columns), and a Mixpanel source
 * without events previews every event of the project.
 */
export const previewSourceSchema = z.discriminatedUnion('type', [
  z
    .object({ ...bigQueryFields, cursorColumn: z.string().trim().max(300).default(''), columns: columnFields })
    .strict()
    .superRefine(checkStatement),
  z.object({ ...mixpanelFields, events: z.array(eventName).max(20, 'At most 20 events').default([]), columns: columnFields }).strict(),
]);

export const createConversionSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the conversion').max(100, 'At most 100 characters'),
    source: sourceSchema,
    destination: z.object({
      destinationId: documentIdSchema,
      accountId: z.string().trim().min(1, 'Pick an account').max(100),
      targetId: z.string().trim().min(1, 'Pick a target').max(100),
    }),
    mapping: mappingSchema,
  })
  .strict();

export type CreateConversionInput = z.infer<typeof createConversionSchema>;

export const updateConversionSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the conversion').max(100, 'At most 100 characters').optional(),
    mapping: mappingSchema.optional(),
    status: z.enum(['active', 'paused']).optional(),
    /** A warehouse conversion's read (its kind and destination stay). */
    source: warehouseSourceSchema.optional(),
  })
  .strict();

export type UpdateConversionInput = z.infer<typeof updateConversionSchema>;

/**
 * Send test event: Meta's test event code (Events Manager → Test events), optional. Meta shows the event
 * under that code's Test events tab; without one it goes under SignalBridge's own code.
 */
export const testEventSchema = z.preprocess(
  // A POST without a body (the button before the code existed, or a script) sends no code.
  (value) => (value === '' || value === null || value === undefined ? {} : value),
  z
    .object({
      testEventCode: z
        .string()
        .trim()
        .max(64, 'At most 64 characters')
        .regex(/^[A-Za-z0-9_-]*$/, 'Letters, digits, _ and - only, as Events Manager shows it (e.g. TEST12345)')
        .optional()
        .transform((value) => value || undefined),
    })
    .strict(),
);
