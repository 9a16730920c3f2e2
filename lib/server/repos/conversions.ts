import { FieldValue, Timestamp, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { Conversion, ConversionDestination, ConversionMapping, ConversionSource } from '@/lib/shared/conversions/conversion';
import { isWarehouseSource, sourceKeyOf, type ReadState, type WarehouseSource } from '@/lib/shared/conversions/conversion';
import { identifiersTakenBy } from '@/lib/shared/conversions/matchKeys';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { iso, notFound, updateExisting } from '@/lib/server/repos/integrations';

/**
 * Conversions: their documents (settings, source, destination, mapping) and the app routing's own
 * conversions. What their delivery leaves behind is in deliveryLog.ts, hourTallies.ts, parkedEvents.ts
 * and matchQuality.ts.
 */

const conversions = (orgId: string) => adminDb().collection('organizations').doc(orgId).collection('conversions');
/** How long delivery records, their payloads and the hour counters are kept (their `expires_at`). */
export const RETENTION_MS = 30 * 24 * 3600 * 1000;
/** Parked events per document (parkedEvents.ts reads them back chunk by chunk). */
export const PARKED_CHUNK = 400;

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
    ...(snap.get('routing') === true ? { routing: true as const } : {}),
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
