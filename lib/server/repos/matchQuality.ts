import { Timestamp, type DocumentSnapshot } from 'firebase-admin/firestore';
import { type MatchKey } from '@/lib/shared/conversions/matchKeys';
import { addMatchCounts, emptyMatchCounts, type MatchCounts, type PlatformMeasure } from '@/lib/shared/conversions/quality';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { iso, notFound } from '@/lib/server/repos/integrations';
import { conversionRef } from '@/lib/server/repos/conversions';
import { sumHours, hourOf, nameOfKey } from '@/lib/server/repos/hourTallies';

/**
 * What the match-quality section reads: the match keys counted in the hour documents over a day and a week,
 * and the platform's own figure kept on the conversion (`platform_quality`), re-read at most every few hours.
 */

/**
 * The match keys counted over the last day and the last week (the hour documents since then, as
 * "last 24 h" reads them), the event names the platform accepted over the week (what scopes its own figure to this
 * conversion), and the last request the platform took (for its own diagnostics).
 */
export async function matchQualityData(
  orgId: string,
  id: string,
  now = new Date(),
): Promise<{ day: MatchCounts; week: MatchCounts; names: string[]; lastRequest: { id: string; at: string } | null }> {
  const ref = conversionRef(orgId, id);
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
  const names = new Set<string>();
  for (const [hour, sum] of sumHours(hours.docs)) {
    for (const [path, count] of Object.entries(sum)) if (path.startsWith('names.') && count > 0) names.add(nameOfKey(path.slice(6)));
    const keys = Object.fromEntries(
      Object.entries(sum).flatMap(([path, count]) => (path.startsWith('match.') ? [[path.slice(6), count]] : [])),
    ) as Partial<Record<MatchKey | 'events', number>>;
    const counts = { events: keys.events ?? 0, keys };
    addMatchCounts(week, counts);
    if (hour >= dayStart) addMatchCounts(day, counts);
  }
  const last = snap.get('last_request') as { id?: string; at?: Timestamp } | undefined;
  return { day, week, names: [...names].sort(), lastRequest: last?.id ? { id: last.id, at: last.at ? iso(last.at) : '' } : null };
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
  const measure = JSON.parse(kept.measure_json) as PlatformMeasure;
  // A figure kept before measures named their kind, or before Meta's diagnostics were put in words, is read again
  // rather than shown in the wrong shape.
  if (measure.status === 'reported' && !('kind' in measure)) return null;
  if (
    measure.status === 'reported' &&
    measure.kind === 'event_scores' &&
    measure.events.some((event) => event.diagnostics.some((item) => !item.text))
  )
    return null;
  return {
    measure,
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
  const ref = conversionRef(orgId, id);
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
  await conversionRef(orgId, id).update({
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
