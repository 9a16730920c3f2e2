/**
 * The "counted" alert: raised when the share of what a conversion sent that its platform received, over the last
 * 7 days whose figures are final, falls under the conversion's threshold (`reconcile_threshold`, 95 % unless set):
 * a loss (refused by its API, or proven never to have arrived by its own count). What the platform attributed to
 * ads is not a loss and never alerts: attribution never covers every conversion (buyers who saw no ad). Resolved
 * once a read finds the share back at or over the threshold. Evaluated once per read (the reading job), never per event.
 */
import type { ReconcileSummary } from '@/lib/shared/conversions/reconciliation';
import { OUTCOMES } from '@/lib/shared/outcomes';
import { raiseAlert, resolveAlert, type AlertSubject } from '@/lib/server/alerts';

/** Fewer events sent over the week than this say nothing about a share. */
const MIN_SENT = 10;

export async function evaluateCounted(
  orgId: string,
  subject: AlertSubject,
  week: ReconcileSummary['week'],
  threshold: number,
  platformName: string,
): Promise<void> {
  if (week.share === null || week.sent < MIN_SENT) return;
  // Whole numbers compared (no rounding): 199 of 200 is under a 100 % threshold, 19 of 20 is not under 95 %.
  const under = week.received * 100 < threshold * week.sent;
  const percent = Math.floor((week.received * 100) / week.sent);
  const link = `/${encodeURIComponent(orgId)}/conversion/${encodeURIComponent(subject.id)}/configuration?tab=counted`;
  if (under) {
    await raiseAlert({
      orgId,
      kind: 'counted_share_low',
      subject,
      link,
      message: `${platformName} received ${week.received} of the ${week.sent} events this conversion sent over the last 7 days (${percent} %), under its ${threshold} % threshold: ${week.sent - week.received} were ${OUTCOMES.not_sent.word} (refused by ${platformName}) or never arrived. "Counted" on its page says on which days, with a link to each day's deliveries.`,
    });
  } else {
    await resolveAlert({
      orgId,
      kind: 'counted_share_low',
      subject,
      message: `${platformName} receives ${percent} % of what this conversion sends again (threshold ${threshold} %).`,
    });
  }
}
