import { identifiersInWords } from '@/components/conversions/mapping';
import {
  isWarehouseSource,
  type ConversionMapping,
  type ConversionSource,
  type ConversionStatus,
} from '@/lib/shared/conversions/conversion';
import type { App, Payment } from '@/lib/shared/integrations/apps';
import type { ConversionPlatform } from '@/lib/shared/conversions/conversion';
import { CONVERSION_TARGET_LABEL, PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';

/**
 * What the conversion pages share: their routes, how a conversion reads in words, its status badge,
 * times relative to now, and the plan-limit answer with its way out.
 */

export { conversionPath, conversionsPath, createConversionPath, destinationPath, isAdDestination } from '@/components/conversions/paths';

/** The source in words: “App “Demo store”” / “Stripe “Shop payments””. */
export function sourceLabel(source: ConversionSource, apps: App[] | undefined, payments: Payment[] | undefined): string {
  if (source.type === 'app') {
    const app = apps?.find((candidate) => candidate.id === source.appId);
    return app ? `App “${app.name}”` : 'An app';
  }
  if (source.type === 'payments') {
    const payment = payments?.find((candidate) => candidate.id === source.paymentId);
    return payment ? `Payments of “${payment.name}”` : 'A payment account';
  }
  if (source.type === 'bigquery')
    return source.mode === 'table' ? `BigQuery table ${source.table}` : `A BigQuery query in ${source.projectId}`;
  return `Mixpanel events ${source.events.map((name) => `“${name}”`).join(', ')}`;
}

/** Where it goes in words: “Meta Ads pixel “Acme Shoes Pixel””. */
export const targetLabel = (platform: ConversionPlatform, targetName: string) =>
  `${PLATFORM_LABELS[platform]} ${CONVERSION_TARGET_LABEL[platform].toLowerCase()} “${targetName}”`;

export function eventsInWords(events: string[]): string {
  return events.length === 0 ? 'Every event of the source' : events.join(', ');
}

export function valueInWords(value: ConversionMapping['value']): string {
  if (value.mode === 'event') return "The event's own value";
  const amount = new Intl.NumberFormat(undefined, { style: 'currency', currency: value.currency }).format(value.amount);
  return `A fixed ${amount} per event`;
}

/** A mapping's rows of a summary list: the event names (not for a warehouse source, whose read chooses its rows), value, identifiers. */
export function MappingInWords({ source, mapping }: { source: ConversionSource; mapping: ConversionMapping }) {
  return (
    <>
      {!isWarehouseSource(source) && (
        <>
          <dt>Events</dt>
          <dd>{eventsInWords(mapping.events)}</dd>
        </>
      )}
      <dt>Value</dt>
      <dd>{valueInWords(mapping.value)}</dd>
      <dt>Identifiers</dt>
      <dd>{identifiersInWords(mapping.identifiers)}</dd>
    </>
  );
}

export const STATUS_LABELS: Record<ConversionStatus, string> = {
  active: 'Active',
  paused: 'Paused',
  needs_reauth: 'Needs reconnecting',
};

export function ConversionStatusBadge({ status, pausedByPlan }: { status: ConversionStatus; pausedByPlan?: string | null }) {
  if (status === 'paused' && pausedByPlan) return <span className="badge badge--pending">Paused by plan</span>;
  const modifier = status === 'active' ? 'badge--accepted' : status === 'paused' ? 'badge--revoked' : 'badge--pending';
  return <span className={`badge ${modifier}`}>{STATUS_LABELS[status]}</span>;
}
