import type { ReconcileSummary } from '@/lib/shared/conversions/reconciliation';

/**
 * What the platform received of what a conversion sent over the last 7 final days ("98 % · 490 of 500"), or why
 * there is none yet. Under the threshold it is marked (colour and words, not colour alone).
 */
export default function CountedShare({ summary, threshold }: { summary: ReconcileSummary | undefined; threshold?: number }) {
  if (!summary || summary.state === 'not_read') return <span className="muted">Not read yet</span>;
  if (summary.state === 'needs_scope') return <span style={{ color: 'var(--danger)' }}>Needs reporting access</span>;
  const { share, sent, received } = summary.week;
  if (share === null) return <span className="muted">{summary.state === 'failed' ? 'Could not read' : 'Nothing final sent yet'}</span>;
  // Whole numbers compared, as the alert does: 199 of 200 is not 100 %.
  const percent = Math.floor((received * 100) / sent);
  const low = threshold !== undefined && received * 100 < threshold * sent;
  return (
    <span data-testid="counted-share" style={low ? { color: 'var(--danger)' } : undefined}>
      <strong>{percent} %</strong>{' '}
      <span className="muted">
        ({received} of {sent} received)
      </span>
      {low ? ' · under the threshold' : ''}
    </span>
  );
}
