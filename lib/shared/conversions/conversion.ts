import { z } from 'zod';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { documentIdSchema } from '@/lib/shared/schemas/ids';

/**
 * A conversion: where events come from (an app's submissions, or a payment account's successful
 * payments), which ad-platform target receives them, and how they are mapped. The pages
 * /{orgId}/createConversion, /conversion and /conversion/{id}/configuration edit it.
 */

export type ConversionStatus = 'active' | 'paused' | 'needs_reauth';

export type ConversionSource = { type: 'app'; appId: string } | { type: 'payments'; paymentId: string };

/** How the queue and the stored conversion name a source: "app:{id}" or "payments:{id}". */
export const sourceKeyOf = (source: ConversionSource) => (source.type === 'app' ? `app:${source.appId}` : `payments:${source.paymentId}`);

/** Where conversions go: an ad platform's target, or (for an app's routing) a Mixpanel project or a BigQuery table. */
export type ConversionPlatform = AdPlatform | 'mixpanel' | 'bigquery';

export interface ConversionDestination {
  destinationId: string;
  platform: ConversionPlatform;
  accountId: string;
  targetId: string;
  targetName: string;
}

/** Identifiers a conversion may send (each only when the event has it). */
export const IDENTIFIERS = ['email', 'phone', 'name', 'externalId', 'clickIds', 'context'] as const;
export type Identifier = (typeof IDENTIFIERS)[number];

export const IDENTIFIER_LABELS: Record<Identifier, string> = {
  email: 'Email (hashed)',
  phone: 'Phone (hashed)',
  name: 'First and last name (hashed)',
  externalId: 'External id (hashed)',
  clickIds: 'Click ids (gclid, fbclid/fbc/fbp, msclkid)',
  context: 'IP address and user agent',
};

export interface ConversionMapping {
  /** Event names to send; empty sends every event of the source. */
  events: string[];
  /** The value sent: the event's own, or a fixed amount. */
  value: { mode: 'event' } | { mode: 'fixed'; amount: number; currency: string };
  identifiers: Identifier[];
}

export interface DeliveryCounts {
  delivered: number;
  failed: number;
}

export interface Conversion {
  id: string;
  name: string;
  source: ConversionSource;
  destination: ConversionDestination;
  mapping: ConversionMapping;
  status: ConversionStatus;
  /** Why it needs reconnecting, in words. */
  statusReason: string | null;
  /** Events kept, not dropped: held until Reconnect, failed until Retry. */
  parked: { held: number; failed: number };
  lastDeliveryAt: string | null;
  createdAt: string;
}

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

/** One row of a delivery record, as the log shows it. */
export interface DeliveryRow {
  id: string;
  status: 'delivered' | 'rejected' | 'not_sent' | 'failed' | 'held';
  reason?: string;
  maskedEmail?: string;
}

/** One platform call (or one set of rows not sent): what the delivery log lists. */
export interface DeliveryRecord {
  id: string;
  at: string;
  test: boolean;
  /** Milliseconds the platform took; null when nothing was sent. */
  latencyMs: number | null;
  counts: Record<DeliveryRow['status'], number>;
  rows: DeliveryRow[];
}

export interface DeliveryHour {
  hour: string;
  delivered: number;
  failed: number;
}

export const DELIVERY_STATUS_LABELS: Record<DeliveryRow['status'], string> = {
  delivered: 'Delivered',
  rejected: 'Rejected by the platform',
  not_sent: 'Not sent',
  failed: 'Failed (Retry)',
  held: 'Held until Reconnect',
};
