import type { AdPlatform } from '@/lib/shared/integrations/platforms';

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

export type { CreateConversionInput, UpdateConversionInput } from '@/lib/shared/schemas/conversions';

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
