import { z } from 'zod';
import { ALERT_KINDS } from '@/lib/shared/alerts';
import { documentIdSchema } from '@/lib/shared/schemas/ids';
import { percentSchema } from '@/lib/shared/schemas/percent';

/** Mark some notices read (by id), or every notice of the list. */
export const markReadSchema = z.union([
  z.object({ ids: z.array(documentIdSchema).min(1, 'Name at least one notification').max(50, 'At most 50 at once') }).strict(),
  z.object({ all: z.literal(true) }).strict(),
]);

/** A person's email settings: for each kind, on or off (kinds left out keep their setting). */
export const emailPreferencesSchema = z.object({ email: z.partialRecord(z.enum(ALERT_KINDS), z.boolean()) }).strict();

/** The organization's Slack incoming webhook; null removes it. Whether the URL is accepted is the server's rule. */
export const slackWebhookSchema = z
  .object({ webhookUrl: z.string().trim().min(1, 'Enter the webhook URL').max(500, 'At most 500 characters').nullable() })
  .strict();

/** When a conversion's refused share alerts: a percentage of at least so many events over the last hour. */
export const failureThresholdSchema = z
  .object({
    percent: percentSchema,
    minEvents: z.number('A number of events').int('A whole number').min(1, 'At least 1 event').max(1_000_000, 'At most 1,000,000'),
  })
  .strict();

export type FailureThresholdInput = z.infer<typeof failureThresholdSchema>;
