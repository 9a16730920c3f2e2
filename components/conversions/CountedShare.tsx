import type { ReconcileSummary } from '@/lib/shared/conversions/reconciliation';

/**
 * A conversion's counted share over the last 7 final days ("80 % · 8 of 10"), or why there is none yet.
 * Under the threshold it is marked (colour and words, not colour alone).
 */
export default function CountedShare({ summary, threshold }: { summary: ReconcileSummary | undefined; threshold?: number }) {
  if (!summary || summary.state === 'not_read') return <span className="muted">Not read yet</span>;
  if (summary.state === 'needs_scope') return <span style={{ color: 'var(--danger)' }}>Needs reporting access</span>;
  const { share, accepted, attributed } = summary.week;
  if (share === null) return <span className="muted">{summary.state === 'failed' ? 'Could not read' : 'Not final yet'}</span>;
  const percent = Math.round(share * 100);
  const low = threshold !== undefined && percent < threshold;
  return (
    <span data-testid="counted-share" style={low ? { color: 'var(--danger)' } : undefined}>
      <strong>{percent} %</strong>{' '}
      <span className="muted">
        ({attributed} of {accepted})
      </span>
      {low ? ' · under the threshold' : ''}
    </span>
  );
}
