import type { CSSProperties } from 'react';
import { OUTCOMES, outcomeOf, splitUndelivered, type Outcome, type StoredRowStatus } from '@/lib/shared/outcomes';
import type { DeliveryCounts } from '@/lib/shared/conversions/conversion';

/** How an outcome looks: its badge class and, in running text, its colour (lib/shared/outcomes.ts gives the tone). */
const BADGE: Record<(typeof OUTCOMES)[Outcome]['tone'], string> = {
  good: 'badge badge--accepted',
  bad: 'badge badge--pending',
  waiting: 'badge',
};
export const outcomeTextStyle = (outcome: Outcome): CSSProperties | undefined =>
  OUTCOMES[outcome].tone === 'bad' ? { color: 'var(--danger)' } : undefined;

/** A row's outcome as a badge: "Delivered", "Not sent", "Failed", "Held". */
export function OutcomeBadge({ status }: { status: StoredRowStatus }) {
  const outcome = outcomeOf(status);
  return <span className={BADGE[OUTCOMES[outcome].tone]}>{OUTCOMES[outcome].label}</span>;
}

/** A conversion's counts in the outcome words: "12 delivered · 3 not sent · 1 failed" (zeros after delivered left out). */
export function OutcomeCounts({ counts }: { counts: DeliveryCounts }) {
  const { notSent, failed } = splitUndelivered(counts);
  const parts: Array<[Outcome, number]> = [
    ['not_sent', notSent],
    ['failed', failed],
  ];
  return (
    <span data-testid="outcome-counts">
      {counts.delivered} {OUTCOMES.delivered.word}
      {parts
        .filter(([, count]) => count > 0)
        .map(([outcome, count]) => (
          <span key={outcome}>
            {' · '}
            <span style={outcomeTextStyle(outcome)}>
              {count} {OUTCOMES[outcome].word}
            </span>
          </span>
        ))}
    </span>
  );
}
