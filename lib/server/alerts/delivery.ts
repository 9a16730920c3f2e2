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
import { raiseAlert, resolveAlert } from '@/lib/server/alerts';
import { deliveryHealthOf } from '@/lib/server/repos/alerts';
import { plural } from '@/lib/shared/plural';
import { OUTCOMES } from '@/lib/shared/outcomes';
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
  const conversion = await deliveryHealthOf(orgId, conversionId, now);
  if (!conversion) return;
  const subject = {
    type: 'conversion' as const,
    id: conversionId,
    name: conversion.name,
    ...(conversion.createdBy ? { createdBy: conversion.createdBy } : {}),
  };
  const { threshold } = conversion;
  const { total, failed } = lastHourCounts(conversion.currentHour, conversion.previousHour, now);
  const percent = total > 0 ? (failed / total) * 100 : 0;
  const over = total >= threshold.minEvents && percent >= threshold.percent;
  if (over) {
    await raiseAlert({
      orgId,
      kind: 'delivery_failures',
      subject,
      message: `${failed} of ${plural(total, 'event')} in the last hour (${Math.round(percent)} %) ${failed === 1 ? 'was' : 'were'} ${OUTCOMES.not_sent.word} or ${OUTCOMES.failed.word} — over this conversion's ${threshold.percent} % threshold. The delivery log says why.`,
    });
  } else if (total > 0) {
    // Events flow and the share (or their number) is under the threshold: the incident is over.
    await resolveAlert({
      orgId,
      kind: 'delivery_failures',
      subject,
      message: `${failed} of ${plural(total, 'event')} in the last hour (${Math.round(percent)} %) ${failed === 1 ? 'was' : 'were'} ${OUTCOMES.not_sent.word} or ${OUTCOMES.failed.word}: under the threshold again.`,
    });
  }
  const { held, failed: failedParked } = conversion.parked;
  if (held + failedParked > 0) {
    const parts = [
      held && `${held} ${OUTCOMES.held.word} until the destination is reconnected`,
      failedParked && `${failedParked} ${OUTCOMES.failed.word} after retries (Retry sends them again)`,
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
