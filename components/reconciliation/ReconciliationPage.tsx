import CountedShare from '@/components/conversions/CountedShare';
import { conversionPath } from '@/components/conversions/shared';
import { messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import { RelativeTime, useNow } from '@/components/ui/time';
import { NameCell } from '@/components/ui/ListRow';
import { PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';
import { useReconciliationQuery } from '@/store/reconciliationApi';

/**
 * `/{orgId}/reconciliation`: every ad conversion with the share of what it sent that its platform received
 * over the last 7 final days, worst first, each linking to its "Counted by the platform" days.
 */
export function ReconciliationPage() {
  const { orgId } = useOrganizationContext();
  const now = useNow();
  const { data = [], isLoading, error, refetch } = useReconciliationQuery(orgId ?? '', { skip: !orgId });
  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Title>Reconciliation</Title>
      <div>
        <h1>Reconciliation</h1>
        <p className="muted">
          Did the platform get what was sent? For each conversion, the share of the events it sent that its platform received (not refused,
          not lost on the way), over the last 7 days whose figures are final. The worst first.
        </p>
      </div>
      {!orgId || isLoading ? (
        <Spinner label="Loading the reconciliation" />
      ) : error ? (
        <Alert>
          {messageOf(error, 'The reconciliation could not be loaded.')}{' '}
          <button type="button" className="link-button" onClick={() => void refetch()}>
            Try again
          </button>
        </Alert>
      ) : data.length === 0 ? (
        <div className="empty-state" data-testid="empty-state">
          <p>No conversion sends to Google Ads, Meta or Microsoft Advertising yet: there is nothing to reconcile.</p>
        </div>
      ) : (
        // A card per conversion on phones (`.table--cards`): its share and when it was last read stay on screen.
        <table className="table table--cards" aria-label="Share received per conversion">
          <TableHead columns={['Conversion', 'Platform', 'Received, last 7 days', 'Last read']} actions={false} />
          <tbody>
            {data.map((row) => (
              <tr key={row.id} data-testid="reconciliation-row">
                <NameCell href={`${conversionPath(orgId, row.id)}?tab=counted`}>{row.name}</NameCell>
                <td data-label="Platform">{PLATFORM_LABELS[row.platform]}</td>
                <td data-label="Received, last 7 days">
                  <CountedShare summary={row.summary} threshold={row.threshold} />
                </td>
                <td data-label="Last read">
                  {row.summary.readAt ? <RelativeTime iso={row.summary.readAt} now={now} /> : <span className="muted">Never</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
