import { nextRunAt } from '@/lib/shared/connections/windows';
import { sourceKeyOf, type Conversion, type DeliveryRow, type ReadState, type WarehouseSource } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { PlatformError } from '@/lib/server/connectors/errors';
import { rowSourceOf } from '@/lib/server/connectors/registry';
import type { RowSource } from '@/lib/server/connectors/types';
import { takesEvent } from '@/lib/server/delivery/mapping';
import { inLanes, startPoller } from '@/lib/server/delivery/poller';
import { rowToEvent } from '@/lib/server/delivery/warehouseRows';
import { deadLoginMessage, workWithSession } from '@/lib/server/credentials';
import { DomainError } from '@/lib/server/errors';
import { errorFields, labels, log } from '@/lib/server/log';
import { publishConversions } from '@/lib/server/queue/pubsub';
import { raiseAlert, resolveAlert } from '@/lib/server/alerts';
import { claimRead, dueReads, finishRead, renewReadLease, saveReadCursor, type ReadCursor } from '@/lib/server/repos/reads';

/**
 * Warehouse conversions: each due BigQuery or Mixpanel conversion is read from its cursor on (its
 * platform's connector `source`), its
 * rows mapped to hashed conversion events and published to the conversions topic for that
 * conversion alone; the delivery worker sends them like any other event (docs/architecture/ingest-and-delivery.md,
 * "Conversions from the warehouse").
 *
 * Nothing is lost or sent twice when a worker dies: a read holds a lease on the conversion, and
 * after each page it publishes, then saves the cursor (the last row's cursor value and the event ids
 * of that value). A read that dies between the two publishes that page again with the same event
 * ids, and the platforms deduplicate them; the rows of a saved page are never read again.
 */

export interface ReadOptions {
  leaseMs?: number;
  /** Rows per results page where the platform pages (BigQuery; tests use small pages). */
  pageRows?: number;
}

export interface ReadSummary {
  rows: number;
  published: number;
  notSent: number;
  bytesBilled: number | null;
}

/**
 * Rows that made no event, itemised in the log until the cursor is saved: a page's at most (BigQuery),
 * a whole export's (Mixpanel, whose cursor is saved at the end). Past this many, the rest are counted
 * in the read's summary only, so the cursor's transaction stays within Firestore's 500 writes.
 */
const MAX_UNSAVED_NOT_SENT = 20_000;
/**
 * Event ids kept for one cursor value: beyond it, rows of that value may be read again (same ids).
 * 2,000 ids of at most 100 characters keep the conversion's document far below Firestore's 1 MiB.
 */
const MAX_CURSOR_IDS = 2000;

/**
 * One page's rows as events and rows not sent, and the cursor after them. Rows of the read's
 * starting value already taken (`from.ids`) are left out.
 */
function takePage(
  conversion: Conversion,
  source: WarehouseSource,
  reader: RowSource,
  rows: Array<{ cursor: string; row: Record<string, unknown> }>,
  from: ReadCursor | null,
  cursor: ReadCursor | null,
) {
  const sourceKey = sourceKeyOf(source);
  const seen = new Set(from?.ids ?? []);
  const start = from?.value ?? null;
  const events: ConversionEvent[] = [];
  const notSent: DeliveryRow[] = [];
  let next = cursor;
  for (const { cursor: value, row } of rows) {
    const mapped = rowToEvent(row, source, sourceKey);
    const id = mapped.ok ? mapped.event.id : mapped.id;
    if (value === start && seen.has(id)) continue;
    if (mapped.ok) {
      if (takesEvent(conversion.mapping, mapped.event)) events.push(mapped.event);
    } else {
      notSent.push({ id, status: 'not_sent', reason: mapped.reason });
    }
    if (!next || value !== next.value) {
      if (!next || reader.ordered || reader.compare(value, next.value) > 0) next = { value, ids: [id] };
    } else if (next.ids.length < MAX_CURSOR_IDS) {
      next = { value, ids: [...next.ids, id] };
    }
  }
  return { events, notSent, next };
}

/**
 * One read of one conversion, if it is due and free: every new row published, the rows that make
 * no event logged as not sent, the cursor saved. Answers the summary, or null when not claimed.
 */
export async function readConversion(orgId: string, id: string, options: ReadOptions = {}): Promise<ReadSummary | null> {
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const claim = await claimRead(orgId, id, leaseMs);
  if (!claim) return null;
  const { conversion, token } = claim;
  const source = conversion.source as WarehouseSource;
  const summary: ReadSummary = { rows: 0, published: 0, notSent: 0, bytesBilled: rowSourceOf(source.type).bills ? 0 : null };
  const nextDue = () => nextRunAt(source.schedule);
  // The lease is renewed when a third of it has passed since it was last extended (each saved page
  // extends it too), also while a query runs or an export streams: a slow read is not taken over, and
  // billed or exported again, by another worker. A lost lease stops it.
  let leaseLost = false;
  let extendedAt = Date.now();
  let renewal: Promise<void> | null = null;
  const renewing = setInterval(
    () => {
      if (renewal || Date.now() - extendedAt < leaseMs / 3) return;
      renewal = renewReadLease(orgId, id, token, leaseMs)
        .then((held) => {
          if (held) extendedAt = Date.now();
          else leaseLost = true;
        })
        .catch((error) =>
          log.warn(
            { component: 'warehouse', ...labels({ org: orgId, conversion: id }), ...errorFields(error) },
            'could not renew a read lease',
          ),
        )
        .finally(() => {
          renewal = null;
        });
    },
    Math.max(250, leaseMs / 6),
  );
  const lost = () => {
    log.warn(
      { component: 'warehouse', ...labels({ org: orgId, conversion: id }) },
      'read lost its lease (its source was edited, or it outlived it); it stops here',
    );
    return summary;
  };
  try {
    const reader = rowSourceOf(source.type);
    // The cursor last saved, and the summary as of it: a read whose login was refused with a cached
    // session runs again from there with a fresh one (workWithSession), as a read taken over would.
    let saved = claim.cursor;
    let summaryAtSave = { ...summary };
    const outcome = await workWithSession(orgId, 'destination', source.destinationId, async (session) => {
      Object.assign(summary, summaryAtSave);
      const from = saved;
      let cursor = from;
      // Rows that made no event are logged with the cursor that passes them, in its transaction.
      let unsaved: DeliveryRow[] = [];
      for await (const page of reader.read(session, source, from?.value ?? null, { pageRows: options.pageRows })) {
        if (leaseLost) return 'lost';
        const { events, notSent, next } = takePage(conversion, source, reader, page.rows, from, cursor);
        summary.rows += page.rows.length;
        if (summary.bytesBilled !== null) summary.bytesBilled += page.bytesBilled;
        if (events.length > 0) await publishConversions(events, { org: orgId, source: sourceKeyOf(source), conversion: conversion.id });
        if (unsaved.length < MAX_UNSAVED_NOT_SENT) unsaved.push(...notSent.slice(0, MAX_UNSAVED_NOT_SENT - unsaved.length));
        summary.published += events.length;
        summary.notSent += notSent.length;
        cursor = next;
        if (reader.ordered && cursor) {
          if (!(await saveReadCursor(orgId, id, token, cursor, leaseMs, unsaved))) return 'lost';
          saved = cursor;
          summaryAtSave = { ...summary };
          unsaved = [];
          extendedAt = Date.now();
        }
      }
      if (!reader.ordered && cursor && !(await saveReadCursor(orgId, id, token, cursor, leaseMs, unsaved))) return 'lost';
      return 'read';
    });
    if (outcome === 'lost') return lost();
    await finishRead(orgId, id, token, { last: summary, dueAt: nextDue() });
    await resolveAlert({ orgId, kind: 'read_failed', subject: { type: 'conversion', id, name: conversion.name } });
    if (summary.rows > 0)
      log.info(
        {
          component: 'warehouse',
          ...labels({ org: orgId, conversion: id }),
          rows: summary.rows,
          published: summary.published,
          notSent: summary.notSent,
        },
        'warehouse rows read',
      );
    return summary;
  } catch (error) {
    const { code } = readFailure(error);
    let { message } = readFailure(error);
    if (!(error instanceof PlatformError || error instanceof DomainError))
      log.error({ component: 'warehouse', ...labels({ org: orgId, conversion: id }), ...errorFields(error) }, 'read failed unexpectedly');
    // A dead login is marked by workWithSession; the read says so in the one sentence.
    if (code === 'needs_reauth') message = deadLoginMessage(source.type);
    const retryAt = error instanceof PlatformError && error.retryAt ? error.retryAt : null;
    // A passing failure is tried again within minutes; anything else waits for the schedule (or an edit).
    const dueAt = retryAt ?? (code === 'retryable' ? new Date(Math.min(nextDue().getTime(), Date.now() + 5 * 60_000)) : nextDue());
    log.warn({ component: 'warehouse', ...labels({ org: orgId, conversion: id }), code, reason: message }, 'read failed');
    await finishRead(orgId, id, token, { error: { code, message }, dueAt }).catch(() => undefined);
    // A dead login is its destination's alert; a passing failure is tried again within minutes.
    if (!['needs_reauth', 'retryable', 'rate_limited'].includes(code))
      await raiseAlert({ orgId, kind: 'read_failed', subject: { type: 'conversion', id, name: conversion.name }, message });
    return { ...summary };
  } finally {
    clearInterval(renewing);
  }
}

/** gRPC codes of Firestore that pass: ABORTED (a lock held too long), DEADLINE_EXCEEDED, UNAVAILABLE. */
const PASSING_FIRESTORE_CODES = new Set([10, 4, 14]);

/** A read's failure, in words the configuration page shows. */
function readFailure(error: unknown): { code: string; message: string } {
  if (error instanceof PlatformError || error instanceof DomainError) return { code: error.code, message: error.message };
  if (PASSING_FIRESTORE_CODES.has((error as { code?: unknown } | null)?.code as number)) {
    return { code: 'retryable', message: 'The read was interrupted by a temporary problem on our side. It is tried again within minutes.' };
  }
  return { code: 'internal', message: 'The read failed unexpectedly. It is tried again at the next scheduled time.' };
}

/** One round over every due warehouse conversion, a few at a time. */
export async function readDueOnce(options: ReadOptions & { concurrency?: number } = {}): Promise<number> {
  let read = 0;
  await inLanes(await dueReads(), options.concurrency ?? 2, async ({ orgId, id }) => {
    // One conversion that cannot be claimed now (its document busy with deliveries) is tried next round;
    // the others of this round still are.
    const summary = await readConversion(orgId, id, options).catch((error) => {
      log.warn(
        { component: 'warehouse', ...labels({ org: orgId, conversion: id }), ...errorFields(error) },
        'could not start a read; it is tried again next round',
      );
      return null;
    });
    if (summary) read += 1;
  });
  return read;
}

/** Reads due warehouse conversions every `intervalMs` until stopped. */
export function startWarehousePoller({ intervalMs, ...options }: ReadOptions & { intervalMs: number }): { stop(): Promise<void> } {
  return startPoller('warehouse', intervalMs, () => readDueOnce(options));
}

export type { ReadState };
