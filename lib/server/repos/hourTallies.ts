import { FieldValue, Timestamp, type DocumentData, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { DeliveryHour } from '@/lib/shared/conversions/conversion';
import type { MatchCounts } from '@/lib/shared/conversions/quality';

import { conversionRef } from '@/lib/server/repos/conversions';

/**
 * A conversion's hourly counters (`conversions/{id}/hours/{YYYY-MM-DDTHH}`, or one `{hour}~{worker}` shard per
 * worker): delivered, refused and match-key counts for the chart, "last 24 h", alerts and match quality. They
 * expire with the delivery log (RETENTION_MS).
 */

/** An hour's document id and `hour` field: 2026-05-01T13 (UTC). */
export const hourOf = (date: Date) => date.toISOString().slice(0, 13);
/**
 * What records add to their hour's counters, as plain numbers by field path (`delivered`, `failed`,
 * `match.events`, `match.email`…): the one place the hour document's counters are named. A worker sums
 * these over many records (deliveryCounters.ts) before it writes them; a lone record writes its own.
 */
export type HourTally = Record<string, number>;

/** A delivery record's rows counted by outcome (repos/deliveryLog.ts `deliveryRecordData`). */
export type OutcomeCounts = Record<'delivered' | 'rejected' | 'not_sent' | 'failed' | 'held', number>;

/**
 * An event name as a key of the hour document's `names` map: percent-encoded, dots too, so no name can split
 * a field path ('Form.Sent') or name another field.
 */
export const nameKey = (name: string) => encodeURIComponent(name).replace(/\./g, '%2E');
export const nameOfKey = (key: string) => {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
};

/**
 * At most this many event names are counted per record: an app may send any name, and each one is a field of
 * the hour document. Names past it are left uncounted (a conversion sending that many is scoped by no name).
 */
export const MAX_NAMES_PER_RECORD = 20;

export function hourTally(counts: OutcomeCounts, matchCounts?: MatchCounts, replayed = 0, delivered?: Record<string, number>): HourTally {
  const tally: HourTally = {
    delivered: counts.delivered,
    failed: counts.rejected + counts.not_sent + counts.failed,
    // Of those, the ones that will not go (refused or unsendable): "not sent" to people, apart from "failed" (Retry).
    notSent: counts.rejected + counts.not_sent,
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
  // The event names the platform accepted: what scopes its own figures (pixel stats, Event Match Quality) to this conversion.
  for (const [name, count] of Object.entries(delivered ?? {}).slice(0, MAX_NAMES_PER_RECORD))
    if (count > 0) tally[`names.${nameKey(name)}`] = count;
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
    // Split at the first dot only: a map's key is one segment.
    const dot = path.indexOf('.');
    const [head, tail] = dot < 0 ? [path, undefined] : [path.slice(0, dot), path.slice(dot + 1)];
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

/** Counts per hour since `since` (for the chart and "last 24 h"). */
export async function deliveryHours(orgId: string, id: string, since: Date): Promise<DeliveryHour[]> {
  const snapshot = await conversionRef(orgId, id).collection('hours').where('hour', '>=', hourOf(since)).orderBy('hour').get();
  return [...sumHours(snapshot.docs)].map(([hour, sum]) => ({
    hour,
    delivered: sum.delivered ?? 0,
    failed: sum.failed ?? 0,
    notSent: sum.notSent ?? 0,
  }));
}
