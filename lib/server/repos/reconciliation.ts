import { randomUUID } from 'node:crypto';
import { FieldValue, Timestamp, type DocumentSnapshot } from 'firebase-admin/firestore';
import {
  DEFAULT_COUNTED_THRESHOLD,
  NOT_READ,
  RECONCILE_DAYS,
  dayOfHour,
  windowDays,
  type PlatformFigure,
  type ReconcileDay,
  type ReconcileSummary,
  type ReconciliationRow,
} from '@/lib/shared/conversions/reconciliation';
import type { Conversion, ConversionMapping } from '@/lib/shared/conversions/conversion';
import { countedNote, isAdPlatform, PLATFORM_LABELS, TARGET_LABEL } from '@/lib/shared/integrations/platforms';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { conversionRef } from '@/lib/server/repos/conversions';
import { iso, notFound } from '@/lib/server/repos/integrations';
import { nameOfKey } from '@/lib/server/repos/hourTallies';

/**
 * What the reading job found per conversion: one document per conversion and day of the account,
 * `conversions/{id}/reconciliation/{YYYY-MM-DD}` (what we sent, what the platform received of it, its own figures
 * with their scope; written once per read, expiring after RECONCILE_DAYS + 5 days), and the summary on the
 * conversion (`reconcile`: state, last read, the received share of the week) beside the user's threshold
 * (`reconcile_threshold`).
 */

const RETENTION_MS = (RECONCILE_DAYS + 5) * 86_400_000;

/** One hour document of ours: what the platform answered (sent), what its API accepted, and the names it accepted. */
export interface OurHour {
  /** 'YYYY-MM-DDTHH', a UTC hour. */
  hour: string;
  sent: number;
  accepted: number;
  /** Delivered events per event name (hours written before names were counted: none). */
  names: Record<string, number>;
}

/** The conversion's hour documents since `sinceHour` (a UTC hour, 'YYYY-MM-DDTHH'), one per document (an hour may have shards). */
export async function ourHours(orgId: string, conversionId: string, sinceHour: string): Promise<OurHour[]> {
  const snapshot = await conversionRef(orgId, conversionId)
    .collection('hours')
    .where('hour', '>=', sinceHour)
    .select('hour', 'delivered', 'failed', 'received', 'sent', 'not_sent', 'held', 'names')
    .get();
  return snapshot.docs.map((doc) => {
    const delivered = Number(doc.get('delivered') ?? 0);
    const failed = Number(doc.get('failed') ?? 0);
    // Hours written before `received` was counted: every row then was delivered or failed.
    const received = Number(doc.get('received') ?? delivered + failed);
    // Hours written before `sent` was counted: received less what was never attempted.
    const sent = Number(doc.get('sent') ?? received - Number(doc.get('not_sent') ?? 0) - Number(doc.get('held') ?? 0));
    const stored = (doc.get('names') ?? {}) as Record<string, unknown>;
    const names = Object.fromEntries(
      Object.entries(stored).flatMap(([key, count]) => (typeof count === 'number' ? [[nameOfKey(key), count]] : [])),
    );
    return { hour: String(doc.get('hour')), sent, accepted: delivered, names };
  });
}

/** Our hours summed per day of `timeZone` (the platform account's) from `from` (a day of that zone) on. */
export function ourDays(hours: OurHour[], from: string, timeZone = 'UTC'): Map<string, { sent: number; accepted: number }> {
  const days = new Map<string, { sent: number; accepted: number }>();
  for (const hour of hours) {
    const date = dayOfHour(hour.hour, timeZone);
    if (date < from) continue;
    const day = days.get(date) ?? { sent: 0, accepted: 0 };
    day.sent += hour.sent;
    day.accepted += hour.accepted;
    days.set(date, day);
  }
  return days;
}

const figureOf = (value: unknown): PlatformFigure | null => {
  const figure = value as { count?: unknown; scope?: unknown } | null | undefined;
  return figure && typeof figure.count === 'number' ? { count: figure.count, scope: String(figure.scope ?? '') } : null;
};

/** A stored day; null for one stored before days held what the platform received of ours (read again at the next round). */
const toDay = (snap: DocumentSnapshot): ReconcileDay | null => {
  if (typeof snap.get('received_by_platform') !== 'number') return null;
  return {
    date: snap.id,
    sent: Number(snap.get('sent') ?? 0),
    received: Number(snap.get('received_by_platform')),
    refused: Number(snap.get('refused') ?? 0),
    platform: { received: figureOf(snap.get('platform.received')), attributed: figureOf(snap.get('platform.attributed')) },
    final: Boolean(snap.get('final')),
    notes: (snap.get('notes') as string[] | undefined) ?? [],
  };
};

export function summaryOf(snap: DocumentSnapshot): ReconcileSummary {
  const stored = snap.get('reconcile') as
    | {
        state?: ReconcileSummary['state'];
        message?: string | null;
        read_at?: Timestamp | null;
        time_zone?: string | null;
        week?: ReconcileSummary['week'];
      }
    | undefined;
  // None, or one stored when the week compared attributed to accepted: not read as it means now (the next round
  // reads it whole, as a first read).
  if (!stored?.state || (stored.week && typeof stored.week.sent !== 'number')) return NOT_READ;
  return {
    state: stored.state,
    message: stored.message ?? null,
    readAt: stored.read_at ? iso(stored.read_at) : null,
    // Summaries read before the days were the account's were UTC days.
    timeZone: stored.read_at ? (stored.time_zone ?? 'UTC') : null,
    week: stored.week ?? NOT_READ.week,
  };
}

/** The zone of the conversion's counted days (its ad account's, as the last read named it); UTC before a read. */
export async function countedTimeZone(orgId: string, conversionId: string): Promise<string> {
  const snap = await conversionRef(orgId, conversionId).get();
  if (!snap.exists) throw notFound('Conversion');
  return summaryOf(snap).timeZone ?? 'UTC';
}

export const thresholdOf = (snap: DocumentSnapshot): number => Number(snap.get('reconcile_threshold') ?? DEFAULT_COUNTED_THRESHOLD);

/** Saves the days read and the summary in one batch (one write per day document). */
export async function saveReconciliation(
  orgId: string,
  conversionId: string,
  days: ReconcileDay[],
  summary: { state: ReconcileSummary['state']; message: string | null; week: ReconcileSummary['week'] | null; timeZone?: string },
  now: Date,
): Promise<void> {
  const ref = conversionRef(orgId, conversionId);
  const batch = adminDb().batch();
  for (const day of days) {
    batch.set(ref.collection('reconciliation').doc(day.date), {
      sent: day.sent,
      received_by_platform: day.received,
      refused: day.refused,
      platform: day.platform,
      final: day.final,
      notes: day.notes,
      read_at: Timestamp.fromDate(now),
      expires_at: Timestamp.fromMillis(Date.parse(`${day.date}T00:00:00Z`) + RETENTION_MS),
    });
  }
  batch.update(ref, {
    'reconcile.state': summary.state,
    'reconcile.message': summary.message,
    ...(summary.week
      ? { 'reconcile.week': summary.week, 'reconcile.read_at': Timestamp.fromDate(now), 'reconcile.time_zone': summary.timeZone ?? 'UTC' }
      : {}),
  });
  await batch.commit();
}

/** A conversion's stored days over the window ending on `now`'s day in `timeZone` (the account's; days never read are left out). */
export async function storedDays(orgId: string, conversionId: string, now = new Date(), timeZone = 'UTC'): Promise<ReconcileDay[]> {
  const [from] = windowDays(now, RECONCILE_DAYS, timeZone);
  const snapshot = await conversionRef(orgId, conversionId)
    .collection('reconciliation')
    .where('__name__', '>=', conversionRef(orgId, conversionId).collection('reconciliation').doc(from!))
    .get();
  return snapshot.docs.flatMap((doc) => toDay(doc) ?? []);
}

/** The conversion's summary, threshold and stored days; not found when the conversion is not the organization's. */
export async function conversionReconciliation(orgId: string, conversionId: string, now = new Date()) {
  const snap = await conversionRef(orgId, conversionId).get();
  if (!snap.exists) throw notFound('Conversion');
  const summary = summaryOf(snap);
  const days = await storedDays(orgId, conversionId, now, summary.timeZone ?? 'UTC');
  const platform = String(snap.get('destination.platform'));
  return {
    platform,
    summary,
    threshold: thresholdOf(snap),
    attribution: isAdPlatform(platform) ? (countedNote(platform, 'attribution') ?? '') : '',
    days,
  };
}

export async function saveCountedThreshold(orgId: string, conversionId: string, threshold: number): Promise<void> {
  const ref = conversionRef(orgId, conversionId);
  await adminDb().runTransaction(async (tx) => {
    if (!(await tx.get(ref)).exists) throw notFound('Conversion');
    tx.update(ref, { reconcile_threshold: threshold, updated_at: FieldValue.serverTimestamp() });
  });
}

/** Every ad conversion of the organization with its summary (the Reconciliation page and the conversions list). */
export async function reconciliationRows(orgId: string): Promise<ReconciliationRow[]> {
  const snapshot = await adminDb()
    .collection('organizations')
    .doc(orgId)
    .collection('conversions')
    .select('name', 'destination', 'reconcile', 'reconcile_threshold')
    .limit(500)
    .get();
  return snapshot.docs.flatMap((doc) => {
    const platform = String(doc.get('destination.platform'));
    if (!isAdPlatform(platform)) return [];
    return [{ id: doc.id, name: String(doc.get('name') ?? doc.id), platform, summary: summaryOf(doc), threshold: thresholdOf(doc) }];
  });
}

/** What the reading job needs of a conversion: its destination and the events it sends. */
export interface ReadTarget {
  id: string;
  name: string;
  destination: Conversion['destination'];
  mapping: Pick<ConversionMapping, 'events'>;
}

const filled = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * A stored conversion as the reading job needs it, read field by field: null when it sends to no ad platform
 * (a warehouse or Mixpanel destination, or none: nothing to count), a reason when it cannot be read. Any shape
 * the product stored (an app's routing conversion, a warehouse source, a document older than some field) is
 * read or skipped, never thrown on: one throw used to skip every conversion of its organization.
 */
function readTargetOf(snap: DocumentSnapshot): ReadTarget | { skipped: string } | null {
  const platform = snap.get('destination.platform') as unknown;
  if (typeof platform !== 'string' || !isAdPlatform(platform)) return null;
  const [destinationId, accountId, targetId] = [
    snap.get('destination_id'),
    snap.get('destination.account_id'),
    snap.get('destination.target_id'),
  ];
  if (!filled(destinationId) || !filled(accountId) || !filled(targetId))
    return {
      skipped: `This conversion names no ${PLATFORM_LABELS[platform]} login, account or ${TARGET_LABEL[platform].toLowerCase()}: edit it and pick its destination again.`,
    };
  const events = snap.get('mapping.events') as unknown;
  const targetName = snap.get('destination.target_name') as unknown;
  return {
    id: snap.id,
    name: filled(snap.get('name')) ? String(snap.get('name')) : snap.id,
    destination: { destinationId, platform, accountId, targetId, targetName: filled(targetName) ? targetName : targetId },
    // None listed: every event (as the delivery reads it).
    mapping: { events: Array.isArray(events) ? events.map(String) : [] },
  };
}

/**
 * The organization's conversions as the reading job groups them: each one's target (null: nothing to count;
 * a reason when it cannot be read), whether it was ever read, who made it and its counted threshold.
 */
export async function readTargets(orgId: string) {
  const snapshot = await adminDb().collection('organizations').doc(orgId).collection('conversions').limit(500).get();
  return snapshot.docs.map((snap) => ({
    id: snap.id,
    target: readTargetOf(snap),
    firstRead: summaryOf(snap).readAt === null,
    createdBy: snap.get('created_by') ? String(snap.get('created_by')) : null,
    threshold: thresholdOf(snap),
  }));
}

const stateRef = (orgId: string) => adminDb().collection('organizations').doc(orgId).collection('reconcile').doc('state');

/**
 * Leases an organization's reading (`organizations/{orgId}/reconcile/state`) when due and free: the
 * lease's owner token (only its holder renews or ends it), or null when not due or leased by another.
 */
export async function claimReconcile(orgId: string, leaseMs: number, everyMs: number, now = new Date()): Promise<string | null> {
  const ref = stateRef(orgId);
  return adminDb().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    const leased = snap.get('lease_until') as Timestamp | undefined;
    const last = snap.get('last_at') as Timestamp | undefined;
    if (leased && leased.toMillis() > now.getTime()) return null;
    if (last && last.toMillis() + everyMs > now.getTime()) return null;
    const owner = randomUUID();
    tx.set(ref, { lease_until: Timestamp.fromMillis(now.getTime() + leaseMs), lease_owner: owner }, { merge: true });
    return owner;
  });
}

/** Extends the lease while `owner` still holds it; false when another worker has taken it over. */
export async function renewReconcile(orgId: string, owner: string, leaseMs: number, now = new Date()): Promise<boolean> {
  const ref = stateRef(orgId);
  return adminDb().runTransaction(async (tx) => {
    if ((await tx.get(ref)).get('lease_owner') !== owner) return false;
    tx.update(ref, { lease_until: Timestamp.fromMillis(now.getTime() + leaseMs) });
    return true;
  });
}

/** Ends `owner`'s lease and marks the read done; a lease another worker holds now is left to it (false). */
export async function finishReconcile(orgId: string, owner: string, now = new Date()): Promise<boolean> {
  const ref = stateRef(orgId);
  return adminDb().runTransaction(async (tx) => {
    if ((await tx.get(ref)).get('lease_owner') !== owner) return false;
    tx.set(ref, { lease_until: null, lease_owner: null, last_at: Timestamp.fromDate(now) }, { merge: true });
    return true;
  });
}

/** Every organization id, read a page at a time (ids only): the poller's round. */
export async function* organizationIds(page = 500): AsyncGenerator<string> {
  let after: string | null = null;
  for (;;) {
    let query = adminDb().collection('organizations').orderBy('__name__').select().limit(page);
    if (after) query = query.startAfter(after);
    const snapshot = await query.get();
    for (const doc of snapshot.docs) yield doc.id;
    if (snapshot.size < page) return;
    after = snapshot.docs.at(-1)!.id;
  }
}
