import { FieldValue, Timestamp, type DocumentSnapshot } from 'firebase-admin/firestore';
import type {
  Connection,
  ConnectionDestination,
  ConnectionSource,
  RunKind,
  RunOutcome,
  Schedule,
  WrittenDay,
} from '@/lib/shared/connections/connection';
import type { AdLevel } from '@/lib/shared/connections/rows';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { iso, notFound, updateExisting } from '@/lib/server/repos/integrations';

/**
 * Connections and what their runs wrote: `days/{date}` keeps the written spend and clicks per account
 * for the chart. `connections_count` on the organization follows creations and deletions. The runs
 * and their jobs are the ledger of repos/ledger.ts.
 */

const organization = (orgId: string) => adminDb().collection('organizations').doc(orgId);
const connections = (orgId: string) => organization(orgId).collection('connections');
const days = (orgId: string, id: string) => connections(orgId).doc(id).collection('days');

export const isoOrNull = (value: unknown) => (value instanceof Timestamp ? value.toDate().toISOString() : null);

export function toConnection(snap: DocumentSnapshot): Connection {
  const source = snap.get('source') as { platform: ConnectionSource['platform']; accounts: ConnectionSource['accounts'] };
  const destination = snap.get('destination') as {
    platform: ConnectionDestination['platform'];
    project_id: string;
    dataset: string | null;
    table: string | null;
  };
  const schedule = snap.get('schedule') as { every: Schedule['every']; at: string; time_zone: string };
  const lastRun = snap.get('last_run') as { id: string; kind: RunKind; outcome: RunOutcome; at: Timestamp } | undefined;
  return {
    id: snap.id,
    name: snap.get('name'),
    source: { sourceId: snap.get('source_id'), platform: source.platform, accounts: source.accounts },
    destination: {
      destinationId: snap.get('destination_id'),
      platform: destination.platform,
      projectId: destination.project_id,
      dataset: destination.dataset ?? null,
      table: destination.table ?? null,
    },
    level: snap.get('level'),
    schedule: { every: schedule.every, at: schedule.at, timeZone: schedule.time_zone },
    lookbackDays: snap.get('lookback_days'),
    status: snap.get('status'),
    statusReason: snap.get('status_reason') ?? null,
    pausedByPlan: snap.get('paused_by_plan') ?? null,
    nextRunAt: isoOrNull(snap.get('next_run_at')),
    lastRun: lastRun ? { id: lastRun.id, kind: lastRun.kind, outcome: lastRun.outcome, at: iso(lastRun.at) } : null,
    runningRunId: snap.get('running_run_id') ?? null,
    backfillRunId: snap.get('backfill_run_id') ?? null,
    createdAt: iso(snap.get('created_at')),
  };
}

export interface NewConnection {
  name: string;
  source: ConnectionSource;
  destination: ConnectionDestination;
  level: AdLevel;
  schedule: Schedule;
  lookbackDays: number;
  nextRunAt: Date;
  uid: string;
}

const scheduleFields = (schedule: Schedule) => ({ every: schedule.every, at: schedule.at, time_zone: schedule.timeZone });

export async function createConnection(orgId: string, input: NewConnection): Promise<Connection> {
  const ref = connections(orgId).doc();
  const batch = adminDb().batch();
  batch.set(ref, {
    name: input.name,
    source_id: input.source.sourceId,
    source: { platform: input.source.platform, accounts: input.source.accounts },
    destination_id: input.destination.destinationId,
    destination: {
      platform: input.destination.platform,
      project_id: input.destination.projectId,
      dataset: input.destination.dataset,
      table: input.destination.table,
    },
    level: input.level,
    schedule: scheduleFields(input.schedule),
    lookback_days: input.lookbackDays,
    status: 'active',
    status_reason: null,
    next_run_at: Timestamp.fromDate(input.nextRunAt),
    last_run: null,
    running_run_id: null,
    backfill_run_id: null,
    created_by: input.uid,
    created_at: FieldValue.serverTimestamp(),
  });
  batch.update(organization(orgId), { connections_count: FieldValue.increment(1) });
  await batch.commit();
  return toConnection(await ref.get());
}

export async function listConnections(orgId: string): Promise<Connection[]> {
  const snapshot = await connections(orgId).orderBy('created_at', 'desc').limit(200).get();
  return snapshot.docs.map(toConnection);
}

export async function getConnection(orgId: string, id: string): Promise<Connection> {
  const snap = await connections(orgId).doc(id).get();
  if (!snap.exists) throw notFound('Connection');
  return toConnection(snap);
}

export interface ConnectionChanges {
  name?: string;
  accounts?: ConnectionSource['accounts'];
  level?: AdLevel;
  schedule?: Schedule;
  lookbackDays?: number;
  status?: 'active' | 'paused';
  nextRunAt?: Date;
}

export async function updateConnection(orgId: string, id: string, changes: ConnectionChanges): Promise<Connection> {
  const ref = connections(orgId).doc(id);
  await updateExisting(
    ref,
    {
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.accounts && { 'source.accounts': changes.accounts }),
      ...(changes.level && { level: changes.level }),
      ...(changes.schedule && { schedule: scheduleFields(changes.schedule) }),
      ...(changes.lookbackDays !== undefined && { lookback_days: changes.lookbackDays }),
      // Paused or resumed by the user: no longer the plan's pause (applyPlan pauses it again if the plan says so).
      ...(changes.status && { status: changes.status, status_reason: null, paused_by_plan: null }),
      ...(changes.nextRunAt && { next_run_at: Timestamp.fromDate(changes.nextRunAt) }),
    },
    'Connection',
  );
  return toConnection(await ref.get());
}

/** Deletes a connection with its runs and written days (not the rows in the destination). */
export async function deleteConnection(orgId: string, id: string): Promise<void> {
  const ref = connections(orgId).doc(id);
  await adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(ref);
    if (!snap.exists) throw notFound('Connection');
    transaction.delete(ref);
    transaction.update(organization(orgId), { connections_count: FieldValue.increment(-1) });
  });
  await adminDb().recursiveDelete(ref);
}

/** The connections of a source or destination (paused together when its login dies, resumed on Reconnect). */
export async function connectionsOf(orgId: string, field: 'source_id' | 'destination_id', objectId: string): Promise<Connection[]> {
  const snapshot = await connections(orgId).where(field, '==', objectId).limit(200).get();
  return snapshot.docs.map(toConnection);
}

/** Connections whose next run is due, across organizations (the scheduler's work list). */
export async function dueConnections(now: Date, limit = 200): Promise<Array<{ orgId: string; id: string }>> {
  const snapshot = await adminDb()
    .collectionGroup('connections')
    .where('next_run_at', '<=', Timestamp.fromDate(now))
    .orderBy('next_run_at')
    .limit(limit)
    .get();
  return snapshot.docs.map((doc) => ({ orgId: doc.ref.parent.parent!.id, id: doc.id }));
}

/** Whether a connection still exists (a job checks before it writes: a deleted connection writes nothing more). */
export async function connectionExists(orgId: string, id: string): Promise<boolean> {
  return (await connections(orgId).doc(id).get()).exists;
}

/** The last `count` days written, oldest first (the chart). */
export async function writtenDays(orgId: string, id: string, count = 30): Promise<WrittenDay[]> {
  const snapshot = await days(orgId, id).orderBy('date', 'desc').limit(count).get();
  return snapshot.docs.map((doc) => ({ date: doc.get('date'), accounts: doc.get('accounts') ?? {} })).reverse();
}

/** Marks connections paused for a dead login (the list says so) or resumed after Reconnect (due now). */
export async function setConnectionsStatus(
  orgId: string,
  ids: string[],
  status: 'needs_reauth' | 'active',
  reason: string | null,
): Promise<void> {
  if (ids.length === 0) return;
  const batch = adminDb().batch();
  for (const id of ids) {
    batch.update(connections(orgId).doc(id), {
      status,
      status_reason: reason,
      ...(status === 'active' && { next_run_at: Timestamp.now() }),
    });
  }
  await batch.commit();
}
