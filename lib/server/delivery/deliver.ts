import type { Conversion, DeliveryRow } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent, RowExchange, RowOutcome } from '@/lib/shared/conversions/event';
import { PlatformError } from '@/lib/server/connectors/errors';
import { connectorFor } from '@/lib/server/connectors/registry';
import type { Delivery } from '@/lib/server/connectors/types';
import { isAdPlatform, type AdAccount, type ConversionTarget, type Integration } from '@/lib/shared/integrations/platforms';
import { countMatchKeys } from '@/lib/shared/conversions/quality';
import { workWithSession } from '@/lib/server/credentials';
import { mapEvent } from '@/lib/server/delivery/mapping';

import { noteDeliveries } from '@/lib/server/alerts/delivery';
import { eventIdsOf, labels, log } from '@/lib/server/log';
import { recordDelivery, CounterSink, Parked } from '@/lib/server/repos/deliveryLog';

/**
 * Delivering one batch of one conversion: map, check, send, and record what became of each row.
 * The three failure classes (docs/architecture/ingest-and-delivery.md): transient failures retry with
 * exponential backoff and full jitter, then park the events as failed (Retry sends them again); a
 * dead login parks them as held (Reconnect sends them again); a request the platform refuses as a
 * whole is split in halves until the rows it refuses are alone, and those are rejected.
 */

export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: Number(process.env.DELIVERY_RETRY_ATTEMPTS || 5),
  baseMs: Number(process.env.DELIVERY_RETRY_BASE_MS || 500),
  maxMs: 20_000,
};

/** Full jitter: a random wait up to base·2^attempt, capped. */
export const backoffMs = (attempt: number, policy: RetryPolicy, random = Math.random) =>
  Math.floor(random() * Math.min(policy.maxMs, policy.baseMs * 2 ** attempt));

const isTransient = (error: unknown) => error instanceof PlatformError && (error.code === 'retryable' || error.code === 'rate_limited');

type Send = (events: ConversionEvent[]) => Promise<RowOutcome[]>;

/** Retries transient failures; anything else (or the last transient failure) is thrown. */
async function withRetry(send: Send, events: ConversionEvent[], policy: RetryPolicy): Promise<RowOutcome[]> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await send(events);
    } catch (error) {
      if (!isTransient(error) || attempt + 1 >= policy.attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt, policy)));
    }
  }
}

/**
 * A transient failure the caller retries later, off its delivery slot (the worker's lanes: a timer puts the
 * batch back in line, so a slow platform's waits hold no slot). Thrown before anything is recorded.
 */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    readonly failure: PlatformError,
  ) {
    super(failure.message);
    this.name = 'RetryLater';
  }
}

/** How long before the next attempt: the platform's own retry time when it gave one, else the backoff. */
const waitMs = (error: PlatformError, attempt: number, policy: RetryPolicy) =>
  error.retryAt ? Math.min(policy.maxMs, Math.max(0, error.retryAt.getTime() - Date.now())) : backoffMs(attempt, policy);

/**
 * One attempt of the whole batch; a transient failure with attempts left is a RetryLater, the last one is
 * thrown; a request refused as a whole is isolated as sendIsolating does (its halves retry in place: rare).
 */
async function sendOnce(send: Send, events: ConversionEvent[], policy: RetryPolicy, attempt: number): Promise<RowOutcome[]> {
  try {
    return await send(events);
  } catch (error) {
    if (isTransient(error) && attempt + 1 < policy.attempts)
      throw new RetryLater(waitMs(error as PlatformError, attempt, policy), error as PlatformError);
    if (error instanceof PlatformError && error.code === 'invalid' && events.length > 1) return sendIsolating(send, events, policy);
    if (error instanceof PlatformError && error.code === 'invalid')
      return [{ id: events[0]!.id, status: 'rejected', reason: error.message, exchange: exchangeOfRefused(error) }];
    throw error;
  }
}

/** Sends; a request refused as a whole is split in halves until the refused rows stand alone. */
export async function sendIsolating(send: Send, events: ConversionEvent[], policy: RetryPolicy): Promise<RowOutcome[]> {
  try {
    return await withRetry(send, events, policy);
  } catch (error) {
    if (!(error instanceof PlatformError) || error.code !== 'invalid') throw error;
    if (events.length === 1) return [{ id: events[0]!.id, status: 'rejected', reason: error.message, exchange: exchangeOfRefused(error) }];
    const half = Math.ceil(events.length / 2);
    return [...(await sendIsolating(send, events.slice(0, half), policy)), ...(await sendIsolating(send, events.slice(half), policy))];
  }
}

/** A row refused alone: what it was sent as and the platform's answer (the debugger of the log). */
const exchangeOfRefused = (error: PlatformError) =>
  error.exchange ? { sent: error.exchange.sent[0], answer: error.exchange.answer } : undefined;

export interface BatchResult {
  rows: DeliveryRow[];
  latencyMs: number | null;
}

/** What each event withheld, for this platform, in the words of the log ("Phone not sent: …"). */
export function withheldNotes(events: ConversionEvent[], platform: string): Map<string, string> {
  const notes = new Map<string, string>();
  for (const event of events) {
    const reasons = (event.withheld ?? [])
      .filter((item) => !item.platforms || item.platforms.includes(platform))
      .map((item) => item.reason);
    if (reasons.length > 0) notes.set(event.id, reasons.join('; '));
  }
  return notes;
}

/** A row of the log: the outcome, the masked email, and what the event withheld (after the outcome's own reason). */
const rowOf = (
  outcome: RowOutcome | { id: string; status: 'held' | 'failed'; reason: string },
  masked: Map<string, string | undefined>,
  notes: Map<string, string> = new Map(),
): DeliveryRow => {
  const note = notes.get(outcome.id);
  const reason = 'reason' in outcome ? outcome.reason : undefined;
  const words = [reason, note].filter(Boolean).join('. ');
  // The exchange is kept beside the record (its payloads), never in the log's rows.
  const row: DeliveryRow & { exchange?: RowExchange } = { ...outcome };
  delete row.exchange;
  return {
    ...row,
    ...(words ? { reason: words } : {}),
    ...(masked.get(outcome.id) ? { maskedEmail: masked.get(outcome.id) } : {}),
  };
};

/** The connector's delivery and where to send: or why this conversion cannot send now. */
function prepare(integration: Integration, conversion: Conversion): { delivery: Delivery; account: AdAccount; target: ConversionTarget } {
  const delivery = connectorFor(integration.platform).deliver;
  if (!delivery) throw new PlatformError(integration.platform, 'invalid', 'This platform does not take conversions.');
  // An ad platform's account must still be picked in the destination; a Mixpanel destination is its project.
  const account = isAdPlatform(integration.platform)
    ? integration.accounts.find((candidate) => candidate.id === conversion.destination.accountId)
    : { id: conversion.destination.accountId, name: integration.accountName };
  if (!account)
    throw new PlatformError(
      integration.platform,
      'invalid',
      'The account of this conversion is no longer picked in its destination. Pick it again, or edit the conversion.',
    );
  return { delivery, account, target: { id: conversion.destination.targetId, name: conversion.destination.targetName } };
}

/**
 * Delivers events (already matched to this conversion) and records the outcome: one delivery record,
 * and parked events when they must wait. Resolves once everything is recorded (the caller may ack).
 */
export async function deliverBatch(
  orgId: string,
  conversion: Conversion,
  events: ConversionEvent[],
  options: {
    test?: boolean;
    testCode?: string;
    retry?: RetryPolicy;
    /**
     * The worker's way: attempts made so far, and a transient failure with attempts left is thrown as
     * RetryLater (the caller waits off its slot) instead of waited for here.
     */
    attempt?: number;
    deferRetries?: boolean;
    /** Awaited before each request to the platform (a shared quota's turn: quota.ts). */
    beforeSend?: () => Promise<void>;
    /** Called once the platform is done with the batch, before its record is written (the worker frees the platform's slot). */
    afterSend?: () => void;
    /** Where the counters go (the worker's aggregator); none: written with the record. */
    counters?: CounterSink;
    /** Ids of parked events published again (Retry, Reconnect): counted as received once already. */
    replayed?: ReadonlySet<string>;
  } = {},
): Promise<BatchResult> {
  const policy = options.retry ?? DEFAULT_RETRY;
  const unique = [...new Map(events.map((event) => [event.id, mapEvent(conversion.mapping, event)])).values()];
  const masked = new Map(unique.map((event) => [event.id, event.maskedEmail]));
  const notes = withheldNotes(unique, conversion.destination.platform);
  const parked: Parked[] = [];
  /** Keeps events for Reconnect or Retry (written with the record); a test event is only reported. */
  const park = (status: 'held' | 'failed', reason: string, events: ConversionEvent[]) => {
    if (!options.test) parked.push({ reason: status, why: reason, events });
    return events.map((event) => rowOf({ id: event.id, status, reason }, masked));
  };

  let rows: DeliveryRow[] = [];
  let latencyMs: number | null = null;
  let requestId: string | undefined;
  const exchanges = new Map<string, RowExchange>();
  // Events being sent when the login was refused (the rows before them stay as checked), and since when.
  let sending: { events: ConversionEvent[]; started: number } | null = null;
  try {
    // A login refused while sending is marked dead by workWithSession (after one refresh of a cached session).
    await workWithSession(orgId, 'destination', conversion.destination.destinationId, async (session, integration) => {
      sending = null;
      const { delivery, account, target } = prepare(integration, conversion);
      const now = new Date();
      // The check the front door warns by too (mapping.ts whyNotSent): the 202's warnings and these rows agree.
      const checked = unique.map((event) => ({ event, reason: delivery.check(event, now) }));
      const sendable = checked.filter((item) => item.reason === null).map((item) => item.event);
      rows = checked
        .filter((item) => item.reason !== null)
        .map((item) => rowOf({ id: item.event.id, status: 'not_sent', reason: item.reason! }, masked, notes));
      if (sendable.length === 0) return;
      const started = Date.now();
      const send: Send = async (batch) => {
        await options.beforeSend?.();
        return delivery.send(session, account, target, batch, { testCode: options.testCode, onRequest: (id) => (requestId = id) });
      };
      try {
        const outcomes = options.deferRetries
          ? await sendOnce(send, sendable, policy, options.attempt ?? 0)
          : await sendIsolating(send, sendable, policy);
        for (const outcome of outcomes) if (outcome.exchange) exchanges.set(outcome.id, outcome.exchange);
        rows.push(...outcomes.map((outcome) => rowOf(outcome, masked, notes)));
      } catch (error) {
        if (error instanceof RetryLater) throw error;
        // The platform refused the login itself: workWithSession decides (the UI then offers Reconnect).
        if (error instanceof PlatformError && error.code === 'needs_reauth') {
          sending = { events: sendable, started };
          throw error;
        }
        rows.push(...failed(error, sendable, park));
      }
      latencyMs = Date.now() - started;
    });
  } catch (error) {
    if (error instanceof RetryLater) throw error;
    const refused = sending as { events: ConversionEvent[]; started: number } | null;
    if (refused && error instanceof PlatformError && error.code === 'needs_reauth') {
      rows.push(...failed(error, refused.events, park));
      latencyMs = Date.now() - refused.started;
    } else {
      rows = failed(error, unique, park);
    }
  }
  options.afterSend?.();
  const deliveryId = await recordDelivery(
    orgId,
    conversion.id,
    {
      test: Boolean(options.test),
      latencyMs,
      rows,
      parked,
      matchCounts: settledMatchCounts(conversion, unique, rows),
      deliveredNames: deliveredNames(unique, rows),
      requestId,
      exchanges,
      replayed: options.replayed?.size ? rows.filter((row) => options.replayed!.has(row.id)).length : 0,
    },
    options.counters,
  );
  logBatch(orgId, conversion.id, deliveryId, rows, { test: Boolean(options.test), latencyMs, platformRequestId: requestId });
  // With the worker's counters the hour is not written yet: they note the deliveries once it is (router.ts).
  if (!options.test && !options.counters) await noteDeliveries(orgId, conversion.id);
  return { rows, latencyMs };
}

/**
 * One line per recorded batch, named by its delivery record and listing its event ids (bounded), so one event is
 * followed from its ingest line to its delivery: delivered (info), or refused or kept to send again (warn).
 */
function logBatch(
  orgId: string,
  conversionId: string,
  deliveryId: string,
  rows: DeliveryRow[],
  fields: { test: boolean; latencyMs: number | null; platformRequestId?: string },
) {
  const counts: Partial<Record<DeliveryRow['status'], number>> = {};
  for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
  const kept = Boolean(counts.failed || counts.held);
  const entry = {
    component: 'worker',
    ...labels({ org: orgId, conversion: conversionId, delivery: deliveryId, event: rows.length === 1 ? rows[0]!.id : undefined }),
    ...eventIdsOf(rows),
    counts,
    ...fields,
  };
  if (kept) log.warn(entry, 'batch kept to send again');
  else if (counts.delivered) log[counts.rejected ? 'warn' : 'info'](entry, 'batch delivered');
  else log.warn(entry, 'batch refused');
}

/**
 * The match keys of the events this record settles, as the ad platform takes them (matchKeysOf):
 * delivered, refused or not sent. Parked events are left out, as they come again and count then.
 */
function settledMatchCounts(conversion: Conversion, events: ConversionEvent[], rows: DeliveryRow[]) {
  const platform = conversion.destination.platform;
  if (!isAdPlatform(platform)) return undefined;
  const settled = new Set(rows.filter((row) => row.status !== 'held' && row.status !== 'failed').map((row) => row.id));
  return countMatchKeys(
    events.filter((event) => settled.has(event.id)),
    platform,
  );
}

/** The delivered events per event name: the names the platform's own figures of this conversion are read by. */
function deliveredNames(events: ConversionEvent[], rows: DeliveryRow[]): Record<string, number> {
  const delivered = new Set(rows.filter((row) => row.status === 'delivered').map((row) => row.id));
  const names: Record<string, number> = {};
  for (const event of events) if (delivered.has(event.id)) names[event.name] = (names[event.name] ?? 0) + 1;
  return names;
}

/** What a failure of the whole batch means for its rows. */
function failed(
  error: unknown,
  events: ConversionEvent[],
  park: (status: 'held' | 'failed', reason: string, events: ConversionEvent[]) => DeliveryRow[],
): DeliveryRow[] {
  if (!(error instanceof PlatformError)) throw error;
  if (error.code === 'needs_reauth') return park('held', `${error.message} Events are kept and sent after you reconnect.`, events);
  if (isTransient(error)) return park('failed', `${error.message} Retry sends these events again.`, events);
  return events.map((event) => ({
    id: event.id,
    status: 'rejected',
    reason: error.message,
    ...(event.maskedEmail ? { maskedEmail: event.maskedEmail } : {}),
  }));
}
