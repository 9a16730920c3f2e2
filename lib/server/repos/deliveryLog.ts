import { promisify } from 'node:util';
import { constants, deflateRaw, deflateRawSync, inflateRaw } from 'node:zlib';
import {
  FieldValue,
  Timestamp,
  type DocumentData,
  type DocumentReference,
  type DocumentSnapshot,
  type SetOptions,
  type UpdateData,
} from 'firebase-admin/firestore';
import type { ConversionEvent, RowExchange } from '@/lib/shared/conversions/event';
import type { DeliveryRecord, DeliveryRow, DeliveryRowDetail, FilteredEvent } from '@/lib/shared/conversions/conversion';
import type { MatchCounts } from '@/lib/shared/conversions/quality';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { iso, notFound } from '@/lib/server/repos/integrations';
import { conversionRef, RETENTION_MS, PARKED_CHUNK } from '@/lib/server/repos/conversions';
import { hourDocument, hourTally, hourOf, type HourTally } from '@/lib/server/repos/hourTallies';
import type { ParkReason } from '@/lib/server/repos/parkedEvents';

/**
 * The delivery log of a conversion: one delivery record per platform call (never one write per event), the
 * payload it sent in deflated chunks beside it (the per-row debugger), and the notes of events its filter left out.
 * Records expire after 30 days (the `expires_at` TTL, firestore.indexes.json).
 */

/**
 * A delivery record as stored: the rows' outcomes as one JSON text (`rows_json`), never read by a
 * query, beside `event_ids` (the one field searched: array-contains). An array of a thousand maps
 * would be indexed entry by entry — the Firestore emulator spent 17 ms of CPU on such a record
 * against 7.5 ms for this shape — and the rows are only ever read whole, with their record.
 */
export function deliveryRecordData(record: { at: Date; test: boolean; latencyMs: number | null; rows: DeliveryRow[] }) {
  const counts = { delivered: 0, rejected: 0, not_sent: 0, failed: 0, held: 0 };
  for (const row of record.rows) counts[row.status] += 1;
  return {
    at: Timestamp.fromDate(record.at),
    test: record.test,
    latency_ms: record.latencyMs,
    counts,
    // JSON leaves out undefined fields.
    rows_json: JSON.stringify(record.rows),
    event_ids: record.rows.map((row) => row.id),
    expires_at: Timestamp.fromMillis(record.at.getTime() + RETENTION_MS),
  };
}

/** Events that could not be delivered now (hashed, as queued), kept until Reconnect ('held') or Retry ('failed'). */
export interface Parked {
  reason: ParkReason;
  why: string;
  events: ConversionEvent[];
}

/** What a delivery record is written with: a batch of its own, or the transaction of a read's cursor. */
export interface DeliveryWrites {
  set(ref: DocumentReference, data: DocumentData, options?: SetOptions): unknown;
  update(ref: DocumentReference, data: UpdateData<DocumentData>): unknown;
}

export interface NewDeliveryRecord {
  test: boolean;
  latencyMs: number | null;
  rows: DeliveryRow[];
  parked?: Parked[];
  /** Match keys of the events this record settles (not those parked to come again): counted in the hour's document. */
  matchCounts?: MatchCounts;
  /** Delivered events per event name (as sent): counted in the hour's document (`names`). */
  deliveredNames?: Record<string, number>;
  /** The platform's id of the request that delivered (Data Manager's requestId), kept for its diagnostics. */
  requestId?: string;
  /** Per event id: the row as sent and the platform's answer (the log's per-row debugger), kept beside the record. */
  exchanges?: Map<string, RowExchange>;
  /** Rows of parked events published again (Retry, Reconnect): counted as received when they first came, not again. */
  replayed?: number;
}

/**
 * Bytes of one payload chunk: a delivery record's rows as sent (a Data Manager batch is 2,000 rows of up to
 * about a kilobyte each) go in chunks of `deliveries/{id}/payloads/{n}`, so no document nears Firestore's 1 MiB.
 */
export const PAYLOAD_CHUNK_BYTES = 800_000;

/**
 * The exchanges of a record's rows as JSON chunks, in the rows' order, with the index of the first row
 * each covers (the record keeps these: opening a row reads its one chunk). A row whose exchange alone is
 * too large keeps a note instead. The answers to whole calls (`requestAnswer`, one object shared by every
 * row of a call) are kept once, in `requests` (the first chunk's `requests_json`); a row names its own by index.
 */
export function payloadChunks(
  rows: DeliveryRow[],
  exchanges: Map<string, RowExchange>,
): { starts: number[]; chunks: string[]; requests: string | null } {
  const requestIndex = new Map<unknown, number>();
  const requests: string[] = [];
  for (const row of rows) {
    const answer = exchanges.get(row.id)?.requestAnswer;
    if (answer === undefined || requestIndex.has(answer)) continue;
    requestIndex.set(answer, requests.length);
    const json = JSON.stringify(answer);
    requests.push(Buffer.byteLength(json) > PAYLOAD_CHUNK_BYTES / 8 ? JSON.stringify({ tooLarge: true }) : json);
  }
  const requestsJson = requests.length > 0 ? `[${requests.join(',')}]` : null;
  const starts: number[] = [];
  const chunks: string[] = [];
  let entries: string[] = [];
  let bytes = 0;
  rows.forEach((row, index) => {
    const exchange = exchanges.get(row.id);
    if (!exchange) return;
    const { requestAnswer, ...own } = exchange;
    const request = requestAnswer === undefined ? undefined : requestIndex.get(requestAnswer);
    let entry = JSON.stringify({ id: row.id, ...own, request });
    if (Buffer.byteLength(entry) > PAYLOAD_CHUNK_BYTES / 2) entry = JSON.stringify({ id: row.id, tooLarge: true, request });
    const size = Buffer.byteLength(entry) + 1;
    if (entries.length === 0 || bytes + size > PAYLOAD_CHUNK_BYTES) {
      if (entries.length > 0) chunks.push(`[${entries.join(',')}]`);
      starts.push(index);
      entries = [];
      // The first chunk carries the calls' answers too.
      bytes = 2 + (chunks.length === 0 && requestsJson ? Buffer.byteLength(requestsJson) : 0);
    }
    entries.push(entry);
    bytes += size;
  });
  if (entries.length > 0) chunks.push(`[${entries.join(',')}]`);
  return { starts, chunks, requests: requestsJson };
}

/**
 * A record's payload chunks as stored: each chunk's JSON (and the calls' answers, on the first) deflated into Bytes
 * (`rows_deflated`, `requests_deflated`). Rows as sent repeat their field names and a call's common values, so a
 * chunk keeps about a sixth of its JSON: the payloads were a third of what a million delivered events cost
 * (docs/cost.md), for a debugger that opens a few rows. The chunks are cut by their JSON's bytes as before, so a
 * deflated one is never larger than PAYLOAD_CHUNK_BYTES and a few bytes. Chunks written before keep their JSON
 * (`rows_json`, `requests_json`) until they expire; both are read.
 */
export interface PackedPayloads {
  starts: number[];
  chunks: Array<{ rows_deflated: Buffer; requests_deflated?: Buffer }>;
}

/** The fastest level: on rows as sent it deflates nearly as much as the default, in less time. */
const DEFLATE = { level: constants.Z_BEST_SPEED };
const deflateAsync = promisify(deflateRaw);
const inflateAsync = promisify(inflateRaw);

/** The payload chunks of a record's rows, deflated off the event loop (zlib's thread pool). */
export async function packPayloads(rows: DeliveryRow[], exchanges: Map<string, RowExchange> | undefined): Promise<PackedPayloads> {
  const { starts, chunks, requests } = payloadChunks(rows, exchanges ?? new Map());
  const deflate = (text: string) => deflateAsync(Buffer.from(text), DEFLATE);
  const packed = await Promise.all(
    chunks.map(async (chunk, index) => ({
      rows_deflated: await deflate(chunk),
      ...(index === 0 && requests ? { requests_deflated: await deflate(requests) } : {}),
    })),
  );
  return { starts, chunks: packed };
}

/** The same, at once (a record written inside a transaction, which cannot wait for the thread pool). */
function packPayloadsNow(rows: DeliveryRow[], exchanges: Map<string, RowExchange> | undefined): PackedPayloads {
  const { starts, chunks, requests } = payloadChunks(rows, exchanges ?? new Map());
  const deflate = (text: string) => deflateRawSync(Buffer.from(text), DEFLATE);
  return {
    starts,
    chunks: chunks.map((chunk, index) => ({
      rows_deflated: deflate(chunk),
      ...(index === 0 && requests ? { requests_deflated: deflate(requests) } : {}),
    })),
  };
}

/** A payload chunk's rows (`rows`) or the calls' answers (`requests`) as JSON text, deflated or as written before. */
export async function payloadText(doc: DocumentSnapshot, field: 'rows' | 'requests'): Promise<string | null> {
  const packed = doc.get(`${field}_deflated`) as Uint8Array | undefined;
  if (packed) return (await inflateAsync(packed)).toString('utf8');
  return (doc.get(`${field}_json`) as string | undefined) ?? null;
}

/**
 * The counters a recorded delivery leaves to a worker's aggregator (deliveryCounters.ts) instead of writing them
 * with the record: the hour's counters, the conversion's last delivery and its parked counts.
 */
export interface DeliveryCounts {
  hour: string;
  tally: HourTally;
  /** When it delivered (none delivered: null). */
  deliveredAt: Date | null;
  requestId?: string;
  parked: Partial<Record<ParkReason, number>>;
}

export interface CounterSink {
  /** Takes one record's counters; resolves once they are written (the worker awaits it only for parked events). */
  add(orgId: string, conversionId: string, counts: DeliveryCounts): Promise<void>;
}

/** The conversion document's fields a delivery sets: last delivery, last request, parked counts. */
export function conversionDeliveryFields(counts: Pick<DeliveryCounts, 'deliveredAt' | 'requestId' | 'parked'>): UpdateData<DocumentData> {
  const fields: UpdateData<DocumentData> = {};
  if (counts.deliveredAt) {
    fields.last_delivery_at = Timestamp.fromDate(counts.deliveredAt);
    if (counts.requestId) fields.last_request = { id: counts.requestId, at: Timestamp.fromDate(counts.deliveredAt) };
  }
  for (const [reason, count] of Object.entries(counts.parked)) if (count) fields[`parked.${reason}`] = FieldValue.increment(count);
  return fields;
}

/** What one record counts, before it is written (alone, or summed by a worker). */
function countsOf(record: NewDeliveryRecord, counts: ReturnType<typeof deliveryRecordData>['counts'], now: Date): DeliveryCounts {
  const parked: Partial<Record<ParkReason, number>> = {};
  for (const { reason, events } of record.parked ?? []) parked[reason] = (parked[reason] ?? 0) + events.length;
  return {
    hour: hourOf(now),
    tally: hourTally(counts, record.matchCounts, record.replayed, record.deliveredNames),
    deliveredAt: counts.delivered > 0 ? now : null,
    requestId: record.requestId,
    parked,
  };
}

/** Writes the record and, beside it in the same batch, its rows as sent (read only when a row is opened). */
function addRecord(
  batch: DeliveryWrites,
  ref: DocumentReference,
  data: ReturnType<typeof deliveryRecordData>,
  payloads: PackedPayloads,
): string {
  const recordRef = ref.collection('deliveries').doc();
  batch.set(recordRef, payloads.chunks.length > 0 ? { ...data, payload_starts: payloads.starts } : data);
  payloads.chunks.forEach((chunk, index) =>
    batch.set(recordRef.collection('payloads').doc(String(index)), { ...chunk, expires_at: data.expires_at }),
  );
  return recordRef.id;
}

/** Writes the parked events of a record into `batch` (with the record: a redelivered message cannot park them twice). */
function addParked(batch: DeliveryWrites, ref: DocumentReference, parked: Parked[] | undefined) {
  for (const { reason, why, events } of parked ?? []) {
    for (let start = 0; start < events.length; start += PARKED_CHUNK) {
      batch.set(ref.collection('parked').doc(), {
        reason,
        why,
        events: events.slice(start, start + PARKED_CHUNK),
        created_at: FieldValue.serverTimestamp(),
      });
    }
  }
}

/**
 * Writes one delivery record (a platform call and its rows' outcomes) and all it counts into `batch`: the
 * hour's document and the conversion's. For writers of a few records a second (a read's transaction, events
 * logged as unreadable); the delivery worker records with `recordDelivery` and a counter sink.
 */
export function addDelivery(
  batch: DeliveryWrites,
  orgId: string,
  conversionId: string,
  record: NewDeliveryRecord,
  payloads: PackedPayloads = packPayloadsNow(record.rows, record.exchanges),
): string {
  const ref = conversionRef(orgId, conversionId);
  const now = new Date();
  const data = deliveryRecordData({ at: now, test: record.test, latencyMs: record.latencyMs, rows: record.rows });
  const id = addRecord(batch, ref, data, payloads);
  addParked(batch, ref, record.parked);
  const counts = countsOf(record, data.counts, now);
  if (!record.test)
    batch.set(ref.collection('hours').doc(counts.hour), hourDocument(counts.hour, counts.tally, data.expires_at), { merge: true });
  const fields = conversionDeliveryFields(record.test ? { ...counts, deliveredAt: null } : counts);
  if (Object.keys(fields).length > 0) batch.update(ref, fields);
  return id;
}

/**
 * Records one delivery. Alone: with the hour's counters, the conversion's last delivery and the events it
 * parks, in one batch. With a counter sink (the worker): the record and its parked events in one batch, the
 * counters handed to the sink once that batch is written; resolves then, or, when it parked events, once the
 * sink has written their count too (the parked count never lags behind parked events a redelivery could not see).
 */
export async function recordDelivery(orgId: string, conversionId: string, record: NewDeliveryRecord, sink?: CounterSink): Promise<string> {
  const [id] = await recordDeliveries(orgId, [{ conversionId, record }], sink);
  return id!;
}

/**
 * Records deliveries of several conversions of an organization as recordDelivery does one, all in one batch: all or
 * none. Answers the records' ids (in the order given), which the log names them by.
 */
export async function recordDeliveries(
  orgId: string,
  deliveries: Array<{ conversionId: string; record: NewDeliveryRecord }>,
  sink?: CounterSink,
): Promise<string[]> {
  const payloads = await Promise.all(deliveries.map(({ record }) => packPayloads(record.rows, record.exchanges)));
  const batch = adminDb().batch();
  if (!sink) {
    const ids = deliveries.map(({ conversionId, record }, index) => addDelivery(batch, orgId, conversionId, record, payloads[index]));
    await batch.commit();
    return ids;
  }
  const now = new Date();
  const written = deliveries.map(({ conversionId, record }, index) => {
    const ref = conversionRef(orgId, conversionId);
    const data = deliveryRecordData({ at: now, test: record.test, latencyMs: record.latencyMs, rows: record.rows });
    const id = addRecord(batch, ref, data, payloads[index]!);
    addParked(batch, ref, record.parked);
    return { id, conversionId, record, counts: data.counts };
  });
  await batch.commit();
  const parkedCounts: Array<Promise<void>> = [];
  for (const { conversionId, record, counts } of written) {
    if (record.test) continue;
    const counted = sink.add(orgId, conversionId, countsOf(record, counts, now));
    if ((record.parked ?? []).some((parked) => parked.events.length > 0)) parkedCounts.push(counted);
    else counted.catch(() => undefined);
  }
  await Promise.all(parkedCounts);
  return written.map(({ id }) => id);
}

function toRecord(snap: DocumentSnapshot): DeliveryRecord {
  return {
    id: snap.id,
    at: iso(snap.get('at')),
    test: Boolean(snap.get('test')),
    latencyMs: snap.get('latency_ms') ?? null,
    counts: snap.get('counts'),
    // Records written before rows_json kept their rows as an array (they expire within 30 days).
    rows: typeof snap.get('rows_json') === 'string' ? (JSON.parse(snap.get('rows_json')) as DeliveryRow[]) : (snap.get('rows') ?? []),
  };
}

/** The latest delivery records, those holding one event id, or those made between two instants (`to` excluded). */
export async function listDeliveries(
  orgId: string,
  id: string,
  options: { eventId?: string; limit?: number; between?: { from: Date; to: Date } } = {},
): Promise<DeliveryRecord[]> {
  let query = conversionRef(orgId, id).collection('deliveries').orderBy('at', 'desc');
  if (options.eventId) query = query.where('event_ids', 'array-contains', options.eventId);
  if (options.between)
    query = query.where('at', '>=', Timestamp.fromDate(options.between.from)).where('at', '<', Timestamp.fromDate(options.between.to));
  const snapshot = await query.limit(options.limit ?? 20).get();
  return snapshot.docs.map(toRecord);
}

/** One row of a delivery record opened: its outcome, and what was sent and answered (null when nothing was kept). */
export async function deliveryRow(orgId: string, id: string, deliveryId: string, eventId: string): Promise<DeliveryRowDetail> {
  const recordRef = conversionRef(orgId, id).collection('deliveries').doc(deliveryId);
  const snap = await recordRef.get();
  if (!snap.exists) throw notFound('Delivery');
  const record = toRecord(snap);
  const index = record.rows.findIndex((row) => row.id === eventId);
  if (index < 0) throw notFound('Event');
  const starts = (snap.get('payload_starts') ?? []) as number[];
  const chunk = starts.findLastIndex((start) => start <= index);
  let exchange: DeliveryRowDetail['exchange'] = null;
  if (chunk >= 0) {
    const payloads = recordRef.collection('payloads');
    const payload = await payloads.doc(String(chunk)).get();
    type Entry = Omit<RowExchange, 'requestAnswer'> & { id: string; tooLarge?: boolean; request?: number };
    const entries = payload.exists ? (JSON.parse((await payloadText(payload, 'rows')) ?? '[]') as Entry[]) : [];
    const entry = entries.find((candidate) => candidate.id === eventId);
    if (entry) {
      // The call's answer is kept once, in the first chunk.
      const first = entry.request === undefined ? null : chunk === 0 ? payload : await payloads.doc('0').get();
      const requests = first?.exists ? (JSON.parse((await payloadText(first, 'requests')) ?? '[]') as unknown[]) : [];
      const requestAnswer = entry.request === undefined ? undefined : requests[entry.request];
      exchange = {
        ...(entry.tooLarge ? { tooLarge: true } : { sent: entry.sent, answer: entry.answer }),
        ...(requestAnswer === undefined ? {} : { requestAnswer }),
      };
    }
  }
  return { row: record.rows[index]!, at: record.at, test: record.test, exchange };
}

/** Event ids of one filtered-out document: like a delivery record, a batch in one document. */
const FILTERED_CHUNK = 2000;

/**
 * Events a conversion's event-name filter left out, so the delivery log can say why when one is searched
 * for: one document per note (the worker gathers a conversion's for up to a second: never one per event or
 * message), `event_ids` searched like a delivery record's, the names beside them as JSON; they expire with the
 * log. Under `id` (derived from the messages it covers) a note written again, for a message delivered again,
 * replaces itself.
 */
export async function recordFiltered(
  orgId: string,
  conversionId: string,
  events: Array<{ id: string; name: string }>,
  wanted: string[],
  id?: string,
): Promise<void> {
  if (events.length === 0) return;
  const ref = conversionRef(orgId, conversionId).collection('filtered');
  const at = new Date();
  const batch = adminDb().batch();
  for (let start = 0; start < events.length; start += FILTERED_CHUNK) {
    const chunk = events.slice(start, start + FILTERED_CHUNK);
    batch.set(id ? ref.doc(start === 0 ? id : `${id}-${start / FILTERED_CHUNK}`) : ref.doc(), {
      at: Timestamp.fromDate(at),
      event_ids: chunk.map((event) => event.id),
      names_json: JSON.stringify(chunk.map((event) => event.name)),
      wanted,
      expires_at: Timestamp.fromMillis(at.getTime() + RETENTION_MS),
    });
  }
  await batch.commit();
}

/** The latest record of an event the filter left out, or null. */
export async function findFiltered(orgId: string, conversionId: string, eventId: string): Promise<FilteredEvent | null> {
  const snapshot = await conversionRef(orgId, conversionId)
    .collection('filtered')
    .where('event_ids', 'array-contains', eventId)
    .limit(1)
    .get();
  const doc = snapshot.docs[0];
  if (!doc) return null;
  const names = JSON.parse(doc.get('names_json') ?? '[]') as string[];
  const index = (doc.get('event_ids') as string[]).indexOf(eventId);
  return { eventId, name: names[index] ?? '', wanted: doc.get('wanted') ?? [], at: iso(doc.get('at')) };
}
