/**
 * The "counted" alert: raised when the share of a conversion's accepted events that its platform
 * attributes, over the last 7 days whose figures are final, falls under the conversion's threshold
 * (`reconcile_threshold`, 80 % unless set); resolved once a read finds it back at or over it. Evaluated
 * once per read (the reading job), never per event.
 */
import type { ReconcileSummary } from '@/lib/shared/conversions/reconciliation';
import { raiseAlert, resolveAlert, type AlertSubject } from '@/lib/server/alerts';

/** Fewer accepted events than this over the week say nothing about a share. */
const MIN_ACCEPTED = 10;

export async function evaluateCounted(
  orgId: string,
  subject: AlertSubject,
  week: ReconcileSummary['week'],
  threshold: number,
  platformName: string,
): Promise<void> {
  if (week.share === null || week.accepted < MIN_ACCEPTED) return;
  const percent = Math.round(week.share * 100);
  const link = `/${encodeURIComponent(orgId)}/conversion/${encodeURIComponent(subject.id)}/configuration#counted`;
  if (percent < threshold) {
    await raiseAlert({
      orgId,
      kind: 'counted_share_low',
      subject,
      link,
      message: `${platformName} counted ${week.attributed} of the ${week.accepted} conversions it accepted over the last 7 days (${percent} %), under this conversion's ${threshold} % threshold. "Counted by the platform" on its page says on which days and why.`,
    });
  } else {
    await resolveAlert({
      orgId,
      kind: 'counted_share_low',
      subject,
      message: `${platformName} counts ${percent} % of the conversions it accepted again (threshold ${threshold} %).`,
    });
  }
}
