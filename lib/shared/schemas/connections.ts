import { z } from 'zod';
import { SCHEDULES } from '@/lib/shared/connections/connection';
import { AD_LEVELS } from '@/lib/shared/connections/rows';
import { documentIdSchema } from '@/lib/shared/schemas/ids';

/**
 * What the connection routes accept (the handlers parse with these; the forms load them after the
 * page is shown, so zod is not part of a page's first load).
 */

const time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'A time as HH:MM');

function isTimeZone(value: string) {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const scheduleSchema = () =>
  z.object({
    every: z.enum(SCHEDULES),
    at: time.default('06:00'),
    timeZone: z.string().max(64).refine(isTimeZone, 'A time zone such as Europe/Berlin').default('UTC'),
  });

const dataset = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_]{1,1024}$/, 'Letters, digits and underscores');
const table = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_]{1,1024}$/, 'Letters, digits and underscores');

export const createConnectionSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the connection').max(100, 'At most 100 characters'),
    sourceId: documentIdSchema,
    accountIds: z.array(z.string().trim().min(1).max(100)).min(1, 'Pick at least one ad account').max(200, 'At most 200 accounts'),
    destinationId: documentIdSchema,
    /** BigQuery: the project (one of the destination's), dataset and table. Mixpanel: from the destination. */
    projectId: z.string().trim().min(1).max(100).optional(),
    dataset: dataset.optional(),
    table: table.optional(),
    level: z.enum(AD_LEVELS),
    schedule: scheduleSchema(),
    lookbackDays: z.number('A number of days').int('Whole days').min(1, 'At least 1 day').max(90, 'At most 90 days').optional(),
  })
  .strict();

export type CreateConnectionInput = z.infer<typeof createConnectionSchema>;

export const updateConnectionSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the connection').max(100, 'At most 100 characters').optional(),
    accountIds: z.array(z.string().trim().min(1).max(100)).min(1, 'Pick at least one ad account').max(200).optional(),
    level: z.enum(AD_LEVELS).optional(),
    schedule: scheduleSchema().optional(),
    lookbackDays: z.number('A number of days').int('Whole days').min(1, 'At least 1 day').max(90, 'At most 90 days').optional(),
    status: z.enum(['active', 'paused']).optional(),
  })
  .strict()
  .refine((changes) => Object.values(changes).some((value) => value !== undefined), {
    message: 'Nothing to change: send at least one of name, accountIds, level, schedule, lookbackDays or status',
  });

export type UpdateConnectionInput = z.infer<typeof updateConnectionSchema>;

/** A day that exists in the calendar: 2025-02-30 and month 13 are not days. */
function isCalendarDay(day: string): boolean {
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day;
}

export const backfillSchema = z
  .object({
    from: z
      .string('A date as YYYY-MM-DD')
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'A date as YYYY-MM-DD')
      .refine(isCalendarDay, 'Not a day of the calendar: check the month and the day'),
  })
  .strict();

export const testConnectionSchema = z.object({ accountId: z.string().trim().min(1, 'Pick an account').max(100) }).strict();
