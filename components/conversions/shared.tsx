import Link from 'next/link';
import { useEffect, useState, useSyncExternalStore, type FormEvent } from 'react';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import { identifiersInWords } from '@/components/conversions/mapping';
import { isWarehouseSource, type ConversionMapping, type ConversionSource, type ConversionStatus } from '@/lib/shared/conversions/conversion';
import type { App, Payment } from '@/lib/shared/integrations/apps';
import type { ConversionPlatform } from '@/lib/shared/conversions/conversion';
import { CONVERSION_TARGET_LABEL, isAdPlatform, PLATFORM_LABELS, type AdPlatform, type Integration } from '@/lib/shared/integrations/platforms';
import type { ApiFailure } from '@/store/api';

/**
 * What the conversion pages share: their routes, how a conversion reads in words, its status badge,
 * times relative to now, and the plan-limit answer with its way out.
 */

const org = (orgId: string) => `/${encodeURIComponent(orgId)}`;
export const conversionsPath = (orgId: string) => `${org(orgId)}/conversion`;
export const createConversionPath = (orgId: string) => `${org(orgId)}/createConversion`;
export const conversionPath = (orgId: string, id: string) => `${org(orgId)}/conversion/${encodeURIComponent(id)}/configuration`;
export const destinationPath = (orgId: string, id: string) => `${org(orgId)}/destination/${encodeURIComponent(id)}/configuration`;

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
  if (source.type === 'bigquery') return source.mode === 'table' ? `BigQuery table ${source.table}` : `A BigQuery query in ${source.projectId}`;
  return `Mixpanel events ${source.events.map((name) => `“${name}”`).join(', ')}`;
}

/** A destination on an ad platform: what a conversion sends to. */
export const isAdDestination = (integration: Integration): integration is Integration & { platform: AdPlatform } => isAdPlatform(integration.platform);

/** Where it goes in words: “Meta Ads pixel “Acme Shoes Pixel””. */
export const targetLabel = (platform: ConversionPlatform, targetName: string) => `${PLATFORM_LABELS[platform]} ${CONVERSION_TARGET_LABEL[platform].toLowerCase()} “${targetName}”`;

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

export function ConversionStatusBadge({ status }: { status: ConversionStatus }) {
  const modifier = status === 'active' ? 'badge--accepted' : status === 'paused' ? 'badge--revoked' : 'badge--pending';
  return <span className={`badge ${modifier}`}>{STATUS_LABELS[status]}</span>;
}

/** Now, refreshed every `everyMs` so relative times move on while the page stays open. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** “5 minutes ago”, “yesterday”; under a minute “just now”. */
export function relativeTime(iso: string, now: number): string {
  const elapsed = new Date(iso).getTime() - now;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(elapsed) >= ms) return format.format(Math.round(elapsed / ms), unit);
  }
  return 'just now';
}

export const formatDateTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** A time relative to now, with the exact time on hover and for machines. */
export function RelativeTime({ iso, now }: { iso: string; now: number }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {relativeTime(iso, now)}
    </time>
  );
}

export const isPlanLimit = (error: unknown) => (error as Partial<ApiFailure> | undefined)?.code === 'plan_limit';

/** A failed call in words; a plan limit (the server names the plans that include conversions) links to the plans. */
export function FailureAlert({ orgId, error, fallback }: { orgId: string; error: unknown; fallback: string }) {
  return (
    <Alert>
      {messageOf(error, fallback)}
      {isPlanLimit(error) && (
        <>
          {' '}
          <Link href={`${org(orgId)}/subscription`}>See the plans</Link>
        </>
      )}
    </Alert>
  );
}

/** The field errors of a failed call, keyed as the server keys them ('destination.targetId', 'mapping.events.0'). */
export const fieldErrorsOf = (error: unknown): Record<string, string[]> => (error as Partial<ApiFailure> | undefined)?.fieldErrors ?? {};

/** A failure that is not about fields (those show under their fields), or null. */
export const formFailureOf = (error: unknown) => (error && Object.keys(fieldErrorsOf(error)).length === 0 ? error : null);

/**
 * The submit of an edit form: its changes are checked with the handler's own schema first, then
 * saved; a 400's field errors land on the fields, and `onSaved` runs once it is saved.
 */
export function useCheckedSubmit<T>(check: (changes: T) => Record<string, string[]>, save: (changes: T) => Promise<{ error: unknown } | { data: unknown }>, onSaved: () => void) {
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  async function submit(event: FormEvent, changes: T) {
    event.preventDefault();
    const found = check(changes);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const result = await save(changes);
    if ('error' in result) setErrors(fieldErrorsOf(result.error));
    else onSaved();
  }
  return { errors, setErrors, submit };
}

/** The first message of a field, or of any field under it ('mapping.events' also finds 'mapping.events.2'). */
export function firstError(errors: Record<string, string[]>, field: string): string | undefined {
  const exact = errors[field]?.[0];
  if (exact) return exact;
  const nested = Object.entries(errors).find(([key]) => key.startsWith(`${field}.`));
  return nested?.[1][0];
}

const subscribeToVisibility = (onChange: () => void) => {
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
};

/** Whether the tab is in view (automatic refreshes pause while it is not). */
export function usePageVisible(): boolean {
  return useSyncExternalStore(subscribeToVisibility, () => document.visibilityState === 'visible', () => true);
}
