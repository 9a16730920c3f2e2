import { randomUUID } from 'node:crypto';
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
import type {
  Conversion,
  ConversionDestination,
  ConversionMapping,
  ConversionSource,
  DeliveryHour,
  DeliveryRecord,
  DeliveryRow,
  DeliveryRowDetail,
  FilteredEvent,
} from '@/lib/shared/conversions/conversion';
import { isWarehouseSource, sourceKeyOf, type ReadState, type WarehouseSource } from '@/lib/shared/conversions/conversion';
import { identifiersTakenBy, type MatchKey } from '@/lib/shared/conversions/matchKeys';
import { addMatchCounts, emptyMatchCounts, type MatchCounts, type PlatformMeasure } from '@/lib/shared/conversions/quality';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { iso, notFound, updateExisting } from '@/lib/server/repos/integrations';

/**
 * Conversions and what their delivery left behind: one delivery record per platform call (not one
 * write per event), hourly counters for the chart, and parked events (held for Reconnect, or failed
 * for Retry). Records and counters expire after 30 days (the `expires_at` TTL, firestore.indexes.json).
 */

const conversions = (orgId: string) => adminDb().collection('organizations').doc(orgId).collection('conversions');
/** How long delivery records, their payloads and the hour counters are kept (their `expires_at`). */
export const RETENTION_MS = 30 * 24 * 3600 * 1000;
const PARKED_CHUNK = 400;

type StoredSource = { type: 'app'; app_id: string } | { type: 'payments'; payment_id: string } | WarehouseSource;

function sourceOf(stored: StoredSource): ConversionSource {
  if (stored.type === 'app') return { type: 'app', appId: stored.app_id };
  if (stored.type === 'payments') return { type: 'payments', paymentId: stored.payment_id };
  return stored;
}

const isoOrNull = (value: unknown) => (value ? iso(value as Timestamp) : null);

/** Where a warehouse conversion's reads stand (the `read` map the reader keeps). */
function readStateOf(snap: DocumentSnapshot): ReadState {
  const leaseUntil = snap.get('read.lease_until') as Timestamp | null | undefined;
  return {
    lastReadAt: isoOrNull(snap.get('read.last_at')),
    nextReadAt: isoOrNull(snap.get('read.due_at')),
    cursor: (snap.get('read.cursor.value') as string | null | undefined) ?? null,
    last: (snap.get('read.last') as ReadState['last'] | undefined) ?? null,
    error: (snap.get('read.error.message') as string | undefined) ?? null,
    reading: Boolean(leaseUntil && leaseUntil.toMillis() > Date.now()),
  };
}

export const conversionRef = (orgId: string, id: string) => conversions(orgId).doc(id);

/**
 * The stored mapping, but a routing's identifiers are all its platform takes, read now: a routing saved
 * before an identifier existed (its stored list frozen then) sends the new one too. Once someone picks
 * its identifiers on the configuration page (`identifiers_chosen`), their list stands.
 */
function mappingOf(snap: DocumentSnapshot, platform: ConversionDestination['platform']): ConversionMapping {
  const mapping = snap.get('mapping') as ConversionMapping;
  const followsPlatform = snap.get('routing') === true && snap.get('identifiers_chosen') !== true;
  return followsPlatform ? { ...mapping, identifiers: identifiersTakenBy(platform) } : mapping;
}

/** A stored conversion document as the app sees it. */
export function toConversion(snap: DocumentSnapshot): Conversion {
  const source = sourceOf(snap.get('source') as StoredSource);
  const destination = snap.get('destination') as {
    platform: ConversionDestination['platform'];
    account_id: string;
    target_id: string;
    target_name: string;
  };
  return {
    id: snap.id,
    name: snap.get('name'),
    source,
    destination: {
      destinationId: snap.get('destination_id'),
      platform: destination.platform,
      accountId: destination.account_id,
      targetId: destination.target_id,
      targetName: destination.target_name,
    },
    mapping: mappingOf(snap, destination.platform),
    status: snap.get('status'),
    statusReason: snap.get('status_reason') ?? null,
    pausedByPlan: snap.get('paused_by_plan') ?? null,
    parked: { held: snap.get('parked.held') ?? 0, failed: snap.get('parked.failed') ?? 0 },
    lastDeliveryAt: snap.get('last_delivery_at') ? iso(snap.get('last_delivery_at')) : null,
    createdAt: iso(snap.get('created_at')),
    ...(isWarehouseSource(source) ? { read: readStateOf(snap) } : {}),
  };
}

/**
 * The source as stored: `app_id` / `source_id` at the top level too, for "what uses this app?"
 * queries. A warehouse source is kept as given; its `source_id` is the destination it reads.
 */
function sourceFields(source: ConversionSource) {
  const source_key = sourceKeyOf(source);
  if (source.type === 'app') return { source: { type: 'app', app_id: source.appId }, app_id: source.appId, source_id: null, source_key };
  if (source.type === 'payments')
    return { source: { type: 'payments', payment_id: source.paymentId }, app_id: null, source_id: source.paymentId, source_key };
  return { source, app_id: null, source_id: source.destinationId, source_key };
}

export async function listConversions(orgId: string): Promise<Conversion[]> {
  const snapshot = await conversions(orgId).orderBy('created_at', 'desc').limit(200).get();
  return snapshot.docs.map(toConversion);
}

export async function getConversion(orgId: string, id: string): Promise<Conversion> {
  const snap = await conversions(orgId).doc(id).get();
  if (!snap.exists) throw notFound('Conversion');
  return toConversion(snap);
}

/** One conversion, or none when it was deleted (the worker's replays and warehouse reads name theirs). */
export async function conversionById(orgId: string, id: string): Promise<Conversion[]> {
  const snap = await conversions(orgId).doc(id).get();
  return snap.exists ? [toConversion(snap)] : [];
}

/** The conversions fed by a source ("app:{id}" / "payments:{id}"), whatever their state. */
export async function conversionsOfSource(orgId: string, sourceKey: string): Promise<Conversion[]> {
  const snapshot = await conversions(orgId).where('source_key', '==', sourceKey).limit(50).get();
  return snapshot.docs.map(toConversion);
}

/** Every active conversion of every organization fed by payments (the payments poller's work list). */
export async function activePaymentConversions(): Promise<Array<{ orgId: string; conversion: Conversion }>> {
  const snapshot = await adminDb()
    .collectionGroup('conversions')
    .where('source.type', '==', 'payments')
    .where('status', '==', 'active')
    .limit(500)
    .get();
  return snapshot.docs.map((doc) => ({ orgId: doc.ref.parent.parent!.id, conversion: toConversion(doc) }));
}

/** The conversions that send to a destination (held together when its login dies). */
export async function conversionsOfDestination(orgId: string, destinationId: string): Promise<Conversion[]> {
  const snapshot = await conversions(orgId).where('destination_id', '==', destinationId).limit(200).get();
  return snapshot.docs.map(toConversion);
}

export interface NewConversion {
  name: string;
  source: ConversionSource;
  destination: ConversionDestination;
  mapping: ConversionMapping;
  uid: string;
}

/** A new conversion (under `id` when given: the demo's, a test's), active. */
export async function createConversion(orgId: string, input: NewConversion & { id?: string }): Promise<Conversion> {
  const ref = input.id ? conversions(orgId).doc(input.id) : conversions(orgId).doc();
  await ref.set({
    name: input.name,
    ...sourceFields(input.source),
    destination_id: input.destination.destinationId,
    destination: {
      platform: input.destination.platform,
      account_id: input.destination.accountId,
      target_id: input.destination.targetId,
      target_name: input.destination.targetName,
    },
    mapping: input.mapping,
    status: 'active',
    parked: { held: 0, failed: 0 },
    created_by: input.uid,
    created_at: FieldValue.serverTimestamp(),
    // A warehouse conversion's first read is due at once.
    ...(isWarehouseSource(input.source) ? { read: { due_at: Timestamp.now() } } : {}),
  });
  return toConversion(await ref.get());
}

/**
 * The conversion behind an app's routing to one ad platform (the app's platform pages): every event of
 * the app, its own value, every identifier its platform takes (identifiersTakenBy, read again at each
 * load: mappingOf). Made, updated and removed with the routing; its id is derived from the app and the platform.
 */
export async function saveRoutingConversion(
  orgId: string,
  app: { id: string; name: string },
  destination: ConversionDestination,
  options: { uid: string; active: boolean; pausedByPlan?: string | null },
): Promise<void> {
  const ref = conversions(orgId).doc(routingConversionId(app.id, destination.platform));
  const existing = await ref.get();
  await ref.set(
    {
      name: `${app.name} → ${destination.targetName}`,
      routing: true,
      ...sourceFields({ type: 'app', appId: app.id }),
      destination_id: destination.destinationId,
      destination: {
        platform: destination.platform,
        account_id: destination.accountId,
        target_id: destination.targetId,
        target_name: destination.targetName,
      },
      mapping: {
        events: [],
        value: { mode: 'event' },
        // Stored for readers of the document; toConversion reads the platform's list afresh (mappingOf).
        identifiers: identifiersTakenBy(destination.platform),
      } satisfies ConversionMapping,
      // The routing page sets the whole mapping again: its identifiers follow the platform anew.
      identifiers_chosen: false,
      status: options.active ? 'active' : 'paused',
      // Paused because the plan has no conversions: an upgrade resumes it (services/planLimits.ts).
      paused_by_plan: options.active ? null : (options.pausedByPlan ?? null),
      ...(existing.exists
        ? { updated_at: FieldValue.serverTimestamp() }
        : { parked: { held: 0, failed: 0 }, created_by: options.uid, created_at: FieldValue.serverTimestamp() }),
    },
    { merge: true },
  );
}

export const routingConversionId = (appId: string, platform: string) => `app-${appId}-${platform}`;

/**
 * The conversions of one source (its `source_key`) that send to this destination target, with the events
 * each takes (none listed: every event): what would send an event twice if another took it too.
 */
export async function conversionsToTarget(
  orgId: string,
  sourceKey: string,
  destination: { destinationId: string; accountId: string; targetId: string },
): Promise<Array<{ id: string; name: string; routing: boolean; events: string[] }>> {
  const snapshot = await conversions(orgId)
    .where('source_key', '==', sourceKey)
    .where('destination_id', '==', destination.destinationId)
    .select('name', 'routing', 'destination', 'mapping')
    .get();
  return snapshot.docs
    .filter(
      (doc) => doc.get('destination.account_id') === destination.accountId && doc.get('destination.target_id') === destination.targetId,
    )
    .map((doc) => ({
      id: doc.id,
      name: String(doc.get('name') ?? doc.id),
      routing: doc.get('routing') === true,
      events: (doc.get('mapping.events') ?? []) as string[],
    }));
}

/** How many conversions of an app were made on their own (not by its routing). */
export async function ownConversionsOfApp(orgId: string, appId: string): Promise<number> {
  const snapshot = await conversions(orgId).where('app_id', '==', appId).select('routing').get();
  return snapshot.docs.filter((doc) => doc.get('routing') !== true).length;
}

/** Removes the routing conversion of one platform of an app, or of every platform (the app is deleted). */
export async function deleteRoutingConversions(orgId: string, appId: string, platform?: string): Promise<void> {
  const snapshot = await conversions(orgId).where('app_id', '==', appId).where('routing', '==', true).get();
  const doomed = snapshot.docs.filter((doc) => !platform || doc.id === routingConversionId(appId, platform));
  await Promise.all(doomed.map((doc) => adminDb().recursiveDelete(doc.ref)));
}

/**
 * Updates a conversion. A warehouse source given anew replaces the stored one; when what it reads
 * changed (table, query, cursor column, events), its cursor is forgotten and the next read starts over
 * (rows read again keep their event ids, so nothing already delivered is counted twice by the platforms).
 */
export async function updateConversion(
  orgId: string,
  id: string,
  changes: { name?: string; mapping?: ConversionMapping; status?: 'active' | 'paused'; source?: WarehouseSource },
  options: { restartRead?: boolean } = {},
): Promise<Conversion> {
  const { source, ...rest } = changes;
  const update: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  if (source) Object.assign(update, sourceFields(source));
  // Identifiers picked by hand stand, a routing's too (mappingOf).
  if (changes.mapping) update.identifiers_chosen = true;
  // Paused or resumed by the user: no longer the plan's pause (an upgrade does not undo their pause).
  if (changes.status) update.paused_by_plan = null;
  // The lease goes too: a read of the old source under way can then neither move the new cursor nor
  // finish (its next save finds the lease gone and it stops), and the new read may start at once.
  if (options.restartRead)
    Object.assign(update, {
      'read.cursor': FieldValue.delete(),
      'read.due_at': Timestamp.now(),
      'read.lease_token': null,
      'read.lease_until': null,
    });
  await updateExisting(conversions(orgId).doc(id), { ...update, updated_at: FieldValue.serverTimestamp() }, 'Conversion');
  return getConversion(orgId, id);
}

/** Deletes a conversion with its log, counters and parked events. */
export async function deleteConversion(orgId: string, id: string): Promise<void> {
  const ref = conversions(orgId).doc(id);
  if (!(await ref.get()).exists) throw notFound('Conversion');
  await adminDb().recursiveDelete(ref);
}

/** An hour's document id and `hour` field: 2026-05-01T13 (UTC). */
export const hourOf = (date: Date) => date.toISOString().slice(0, 13);

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
 * What records add to their hour's counters, as plain numbers by field path (`delivered`, `failed`,
 * `match.events`, `match.email`…): the one place the hour document's counters are named. A worker sums
 * these over many records (deliveryCounters.ts) before it writes them; a lone record writes its own.
 */
export type HourTally = Record<string, number>;

export function hourTally(counts: ReturnType<typeof deliveryRecordData>['counts'], matchCounts?: MatchCounts, replayed = 0): HourTally {
  const tally: HourTally = {
    delivered: counts.delivered,
    failed: counts.rejected + counts.not_sent + counts.failed,
    // The reconciliation funnel: each event routed here once (a parked event published again was counted when it
    // first came), and each event the platform answered for good. A failed row is parked to come again (Retry):
    // counted as sent when it is answered, so an event is never sent twice in the funnel, nor sent but not received.
    received: counts.delivered + counts.rejected + counts.not_sent + counts.failed + counts.held - replayed,
    sent: counts.delivered + counts.rejected,
  };
  // Match keys ride in the same write as the hour's counters: no document more per batch.
  if (matchCounts && matchCounts.events > 0) {
    tally['match.events'] = matchCounts.events;
    for (const [key, count] of Object.entries(matchCounts.keys)) if (count > 0) tally[`match.${key}`] = count;
  }
  return tally;
}

/** Adds one tally into another. */
export function addTally(into: HourTally, tally: HourTally): HourTally {
  for (const [path, count] of Object.entries(tally)) into[path] = (into[path] ?? 0) + count;
  return into;
}

/**
 * An hour document's counters, nested as stored (`match: { email }`): each an increment (a merge into
 * `hours/{hour}`, shared by lone writers), or a worker's running totals (a set of its own shard: written
 * again, the same totals).
 */
export function hourDocument(hour: string, tally: HourTally, expires: Timestamp, as: 'increments' | 'totals' = 'increments'): DocumentData {
  const data: DocumentData = { hour, expires_at: expires };
  const value = (count: number) => (as === 'increments' ? FieldValue.increment(count) : count);
  for (const [path, count] of Object.entries(tally)) {
    const [head, tail] = path.split('.') as [string, string | undefined];
    if (tail === undefined) data[head] = value(count);
    else if (count !== 0) data[head] = { ...(data[head] as object | undefined), [tail]: value(count) };
  }
  return data;
}

/**
 * The hour documents' counters summed per hour, as `HourTally` paths (`delivered`, `match.email`…): an hour
 * is one document, or one shard per worker that delivered in it (`{hour}~{worker}`). Every reader sums here.
 */
export function sumHours(docs: DocumentSnapshot[]): Map<string, HourTally> {
  const hours = new Map<string, HourTally>();
  for (const doc of docs) {
    const hour = doc.get('hour') as string;
    const sum = hours.get(hour) ?? {};
    for (const [field, value] of Object.entries(doc.data() ?? {})) {
      if (typeof value === 'number') sum[field] = (sum[field] ?? 0) + value;
      else if (value && typeof value === 'object' && !(value instanceof Timestamp))
        for (const [key, count] of Object.entries(value as Record<string, unknown>))
          if (typeof count === 'number') sum[`${field}.${key}`] = (sum[`${field}.${key}`] ?? 0) + count;
    }
    hours.set(hour, sum);
  }
  return hours;
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
    tally: hourTally(counts, record.matchCounts, record.replayed),
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
  record: NewDeliveryRecord,
): string {
  const recordRef = ref.collection('deliveries').doc();
  const payloads = payloadChunks(record.rows, record.exchanges ?? new Map());
  batch.set(recordRef, payloads.chunks.length > 0 ? { ...data, payload_starts: payloads.starts } : data);
  payloads.chunks.forEach((chunk, index) =>
    batch.set(recordRef.collection('payloads').doc(String(index)), {
      rows_json: chunk,
      ...(index === 0 && payloads.requests ? { requests_json: payloads.requests } : {}),
      expires_at: data.expires_at,
    }),
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
export function addDelivery(batch: DeliveryWrites, orgId: string, conversionId: string, record: NewDeliveryRecord): string {
  const ref = conversions(orgId).doc(conversionId);
  const now = new Date();
  const data = deliveryRecordData({ at: now, test: record.test, latencyMs: record.latencyMs, rows: record.rows });
  const id = addRecord(batch, ref, data, record);
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
  const batch = adminDb().batch();
  if (!sink) {
    const ids = deliveries.map(({ conversionId, record }) => addDelivery(batch, orgId, conversionId, record));
    await batch.commit();
    return ids;
  }
  const now = new Date();
  const written = deliveries.map(({ conversionId, record }) => {
    const ref = conversions(orgId).doc(conversionId);
    const data = deliveryRecordData({ at: now, test: record.test, latencyMs: record.latencyMs, rows: record.rows });
    const id = addRecord(batch, ref, data, record);
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

/** The latest delivery records, or those holding one event id. */
export async function listDeliveries(
  orgId: string,
  id: string,
  options: { eventId?: string; limit?: number } = {},
): Promise<DeliveryRecord[]> {
  let query = conversions(orgId).doc(id).collection('deliveries').orderBy('at', 'desc');
  if (options.eventId) query = query.where('event_ids', 'array-contains', options.eventId);
  const snapshot = await query.limit(options.limit ?? 20).get();
  return snapshot.docs.map(toRecord);
}

/** One row of a delivery record opened: its outcome, and what was sent and answered (null when nothing was kept). */
export async function deliveryRow(orgId: string, id: string, deliveryId: string, eventId: string): Promise<DeliveryRowDetail> {
  const recordRef = conversions(orgId).doc(id).collection('deliveries').doc(deliveryId);
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
    const entries = payload.exists ? (JSON.parse(payload.get('rows_json')) as Entry[]) : [];
    const entry = entries.find((candidate) => candidate.id === eventId);
    if (entry) {
      // The call's answer is kept once, in the first chunk.
      const first = entry.request === undefined ? null : chunk === 0 ? payload : await payloads.doc('0').get();
      const requests = first?.exists ? (JSON.parse(first.get('requests_json') ?? '[]') as unknown[]) : [];
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
  const ref = conversions(orgId).doc(conversionId).collection('filtered');
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
  const snapshot = await conversions(orgId)
    .doc(conversionId)
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

/** Counts per hour since `since` (for the chart and "last 24 h"). */
export async function deliveryHours(orgId: string, id: string, since: Date): Promise<DeliveryHour[]> {
  const snapshot = await conversions(orgId).doc(id).collection('hours').where('hour', '>=', hourOf(since)).orderBy('hour').get();
  return [...sumHours(snapshot.docs)].map(([hour, sum]) => ({ hour, delivered: sum.delivered ?? 0, failed: sum.failed ?? 0 }));
}

/**
 * The match keys counted over the last day and the last week (the hour documents since then, as
 * "last 24 h" reads them), and the last request the platform took (for its own diagnostics).
 */
export async function matchQualityData(
  orgId: string,
  id: string,
  now = new Date(),
): Promise<{ day: MatchCounts; week: MatchCounts; lastRequest: { id: string; at: string } | null }> {
  const ref = conversions(orgId).doc(id);
  const dayStart = hourOf(new Date(now.getTime() - 24 * 3600 * 1000));
  const [snap, hours] = await Promise.all([
    ref.get(),
    ref
      .collection('hours')
      .where('hour', '>=', hourOf(new Date(now.getTime() - 7 * 24 * 3600 * 1000)))
      .get(),
  ]);
  if (!snap.exists) throw notFound('Conversion');
  const day = emptyMatchCounts();
  const week = emptyMatchCounts();
  for (const [hour, sum] of sumHours(hours.docs)) {
    const keys = Object.fromEntries(
      Object.entries(sum).flatMap(([path, count]) => (path.startsWith('match.') ? [[path.slice(6), count]] : [])),
    ) as Partial<Record<MatchKey | 'events', number>>;
    const counts = { events: keys.events ?? 0, keys };
    addMatchCounts(week, counts);
    if (hour >= dayStart) addMatchCounts(day, counts);
  }
  const last = snap.get('last_request') as { id?: string; at?: Timestamp } | undefined;
  return { day, week, lastRequest: last?.id ? { id: last.id, at: last.at ? iso(last.at) : '' } : null };
}

/** The platform's own match-quality figure as kept on the conversion document (`platform_quality`). */
export interface StoredPlatformMeasure {
  measure: PlatformMeasure;
  readAt: string;
}

/** The kept figure, when it is of `key` (the destination and target it was read for). */
function storedMeasureOf(snap: DocumentSnapshot, key: string): (StoredPlatformMeasure & { freshUntil: number }) | null {
  const kept = snap.get('platform_quality') as
    { key?: string; measure_json?: string; read_at?: Timestamp; fresh_until?: Timestamp } | undefined;
  if (!kept?.measure_json || kept.key !== key || !kept.read_at) return null;
  return {
    measure: JSON.parse(kept.measure_json) as PlatformMeasure,
    readAt: iso(kept.read_at),
    freshUntil: kept.fresh_until?.toMillis() ?? 0,
  };
}

/**
 * Whether this caller is the one to ask the platform for its figure: not while a kept figure is fresh, nor
 * while another reader holds the claim (until `claimMs` after it took it). Taking the claim is one write in a
 * transaction, so instances opening the page at once ask once between them.
 */
export async function claimPlatformMeasure(
  orgId: string,
  id: string,
  key: string,
  claimMs: number,
  now = Date.now(),
): Promise<{ stored: StoredPlatformMeasure | null; claimed: boolean }> {
  const ref = conversions(orgId).doc(id);
  /** What the document says: the kept figure, and whether nobody need (or may) ask the platform now. */
  const decide = (snap: DocumentSnapshot) => {
    if (!snap.exists) throw notFound('Conversion');
    const kept = storedMeasureOf(snap, key);
    const stored = kept ? { measure: kept.measure, readAt: kept.readAt } : null;
    const claimedUntil = snap.get('platform_quality.claimed_until') as Timestamp | null | undefined;
    const settled = Boolean((kept && kept.freshUntil > now) || (claimedUntil && claimedUntil.toMillis() > now));
    return { stored, settled };
  };
  // Most views find a fresh figure: a plain read, no transaction on a document the worker writes too.
  const seen = decide(await ref.get());
  if (seen.settled) return { stored: seen.stored, claimed: false };
  return adminDb().runTransaction(async (transaction) => {
    const { stored, settled } = decide(await transaction.get(ref));
    if (settled) return { stored, claimed: false };
    transaction.update(ref, { 'platform_quality.claimed_until': Timestamp.fromMillis(now + claimMs) });
    return { stored, claimed: true };
  });
}

/** Keeps the figure just read (and ends the claim): the one write per cooldown besides the claim. */
export async function savePlatformMeasure(
  orgId: string,
  id: string,
  figure: { key: string; measure: PlatformMeasure; readAt: Date; freshUntil: Date },
): Promise<void> {
  await conversions(orgId)
    .doc(id)
    .update({
      platform_quality: {
        key: figure.key,
        // As JSON: only ever read back whole, never queried, and no index entry per nested field.
        measure_json: JSON.stringify(figure.measure),
        read_at: Timestamp.fromDate(figure.readAt),
        fresh_until: Timestamp.fromDate(figure.freshUntil),
        claimed_until: null,
      },
    });
}

export type ParkReason = 'held' | 'failed';

/** How long a Retry holds a parked chunk while it publishes it: another Retry skips it meanwhile. */
const PARKED_LEASE_MS = 60_000;

/**
 * Retry: the parked events of a reason are published again, chunk by chunk, each under a lease taken in a
 * transaction, so Retries at once never publish one chunk twice. A chunk is removed (and its count taken
 * off) once published, by the lease holder only; a Retry that dies between the two leaves its chunk to the
 * next one after the lease runs out (published twice then: the platforms deduplicate by event id).
 */
export async function retryParked(
  orgId: string,
  conversionId: string,
  reason: ParkReason,
  publish: (events: ConversionEvent[]) => Promise<void>,
): Promise<number> {
  const ref = conversions(orgId).doc(conversionId);
  const snapshot = await ref.collection('parked').where('reason', '==', reason).get();
  const lease = randomUUID();
  let taken = 0;
  for (const doc of snapshot.docs) {
    const events = await adminDb().runTransaction(async (transaction) => {
      const current = await transaction.get(doc.ref);
      const leasedUntil = current.get('leased_until') as Timestamp | undefined;
      if (!current.exists || (leasedUntil && leasedUntil.toMillis() > Date.now())) return null;
      transaction.update(doc.ref, { lease, leased_until: Timestamp.fromMillis(Date.now() + PARKED_LEASE_MS) });
      return (current.get('events') ?? []) as ConversionEvent[];
    });
    if (!events) continue;
    try {
      await publish(events);
    } catch (error) {
      await doc.ref.update({ lease: null, leased_until: null }).catch(() => undefined);
      throw error;
    }
    const removed = await adminDb().runTransaction(async (transaction) => {
      const current = await transaction.get(doc.ref);
      if (!current.exists || current.get('lease') !== lease) return false;
      transaction.delete(doc.ref);
      transaction.update(ref, { [`parked.${reason}`]: FieldValue.increment(-events.length) });
      return true;
    });
    if (removed) taken += events.length;
  }
  return taken;
}

/** How many events are parked, per reason: the counters kept beside the parked documents. */
export async function parkedCounts(orgId: string, conversionId: string): Promise<Record<ParkReason, number>> {
  return (await getConversion(orgId, conversionId)).parked;
}
