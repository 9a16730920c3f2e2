/**
 * Alerts from a conversion's deliveries, decided from what the worker already writes: the hourly
 * counters (`hours/{YYYY-MM-DDTHH}`, or one `{hour}~{worker}` shard per worker: delivered, and failed =
 * rejected + not sent + failed) and the parked counters on the conversion. Nothing is written per batch: a
 * conversion is evaluated at most once per ALERT_EVALUATE_MS (a minute) per process — the first write at
 * once, later ones once the minute is over — with two reads (the conversion, its last two hours' documents).
 * In the worker the evaluation follows the write of the counters (repos/deliveryCounters.ts `onWritten`), not
 * the batch: evaluated before its hour was written, a lone burst of refusals read as nothing and, with no
 * event after it, was never read again.
 */
import { adminDb } from '@/lib/server/firebaseAdmin';
import { raiseAlert, resolveAlert } from '@/lib/server/alerts';
import { thresholdOf } from '@/lib/server/repos/alerts';
import { hourOf, sumHours } from '@/lib/server/repos/conversions';
import { plural } from '@/lib/shared/plural';
import { errorFields, labels, log } from '@/lib/server/log';

const evaluateEveryMs = () => Number(process.env.ALERT_EVALUATE_MS) || 60_000;

const lastEvaluated = new Map<string, number>();
const trailing = new Map<string, ReturnType<typeof setTimeout>>();

/**
 * The last hour's delivered and refused events, from two hourly documents: the current hour whole and
 * the share of the previous hour that is still within the last 60 minutes.
 */
export function lastHourCounts(
  current: { delivered: number; failed: number },
  previous: { delivered: number; failed: number },
  now: Date,
): { total: number; failed: number } {
  const weight = 1 - (now.getUTCMinutes() * 60 + now.getUTCSeconds()) / 3600;
  const failed = current.failed + previous.failed * weight;
  const total = current.delivered + current.failed + (previous.delivered + previous.failed) * weight;
  return { total: Math.round(total), failed: Math.round(failed) };
}

/** Reads the counters of one conversion and raises or resolves its delivery and parked alerts. */
export async function evaluateConversion(orgId: string, conversionId: string, now = new Date()): Promise<void> {
  const ref = adminDb().collection('organizations').doc(orgId).collection('conversions').doc(conversionId);
  const [currentHour, previousHour] = [hourOf(now), hourOf(new Date(now.getTime() - 3_600_000))];
  const [conversion, hours] = await Promise.all([
    ref.get(),
    ref.collection('hours').where('hour', 'in', [currentHour, previousHour]).get(),
  ]);
  if (!conversion.exists) return;
  const sums = sumHours(hours.docs);
  const sumOf = (hour: string) => ({ delivered: sums.get(hour)?.delivered ?? 0, failed: sums.get(hour)?.failed ?? 0 });
  const subject = {
    type: 'conversion' as const,
    id: conversionId,
    name: String(conversion.get('name') ?? conversionId),
    ...(conversion.get('created_by') ? { createdBy: String(conversion.get('created_by')) } : {}),
  };
  const threshold = thresholdOf(conversion);
  const { total, failed } = lastHourCounts(sumOf(currentHour), sumOf(previousHour), now);
  const percent = total > 0 ? (failed / total) * 100 : 0;
  const over = total >= threshold.minEvents && percent >= threshold.percent;
  if (over) {
    await raiseAlert({
      orgId,
      kind: 'delivery_failures',
      subject,
      message: `${failed} of ${plural(total, 'event')} in the last hour (${Math.round(percent)} %) ${failed === 1 ? 'was' : 'were'} rejected, not sent or failed — over this conversion's ${threshold.percent} % threshold. The delivery log says why.`,
    });
  } else if (total > 0) {
    // Events flow and the share (or their number) is under the threshold: the incident is over.
    await resolveAlert({
      orgId,
      kind: 'delivery_failures',
      subject,
      message: `${failed} of ${plural(total, 'event')} in the last hour (${Math.round(percent)} %) ${failed === 1 ? 'was' : 'were'} refused: under the threshold again.`,
    });
  }
  const parked = (conversion.get('parked') ?? {}) as { held?: number; failed?: number };
  const held = Number(parked.held ?? 0);
  const failedParked = Number(parked.failed ?? 0);
  if (held + failedParked > 0) {
    const parts = [
      held && `${held} held until the destination is reconnected`,
      failedParked && `${failedParked} failed after retries (Retry sends them again)`,
    ];
    await raiseAlert({ orgId, kind: 'events_parked', subject, message: `Events are waiting: ${parts.filter(Boolean).join(', ')}.` });
  } else {
    await resolveAlert({ orgId, kind: 'events_parked', subject, message: 'Every held or failed event has been sent again.' });
  }
}

/**
 * Called once a conversion's outcomes are written (the worker: each write of its counters; elsewhere: each
 * recorded batch): evaluates now if the last evaluation is a minute old, else once that minute is over (one
 * timer per conversion, so what was written meanwhile is read then, events after it or not). Never throws.
 */
export async function noteDeliveries(orgId: string, conversionId: string): Promise<void> {
  const key = `${orgId}/${conversionId}`;
  const since = Date.now() - (lastEvaluated.get(key) ?? 0);
  const every = evaluateEveryMs();
  const run = () => {
    lastEvaluated.set(key, Date.now());
    return evaluateConversion(orgId, conversionId).catch((error) =>
      log.error(
        { component: 'alerts', ...labels({ org: orgId, conversion: conversionId }), ...errorFields(error) },
        'conversion could not be evaluated for alerts',
      ),
    );
  };
  if (since >= every) return run();
  if (trailing.has(key)) return;
  const timer = setTimeout(() => {
    trailing.delete(key);
    void run();
  }, every - since);
  timer.unref?.();
  trailing.set(key, timer);
}

/** Cancels the evaluations waiting on their minute (a test file's end: none may run after it). */
export function stopDeliveryAlertTimers(): void {
  for (const timer of trailing.values()) clearTimeout(timer);
  trailing.clear();
}
