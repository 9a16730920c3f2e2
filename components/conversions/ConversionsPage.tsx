import Link from 'next/link';
import {
  conversionPath,
  ConversionStatusBadge,
  createConversionPath,
  destinationPath,
  sourceLabel,
  targetLabel,
} from '@/components/conversions/shared';
import { RelativeTime, useNow } from '@/components/ui/time';
import { messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import { ConfigureButton, NameCell } from '@/components/ui/ListRow';
import { can } from '@/lib/shared/permissions';
import { useConversionsQuery } from '@/store/conversionsApi';
import DeadLettersNotice from '@/components/support/DeadLettersNotice';
import CountedShare from '@/components/conversions/CountedShare';
import { isAdPlatform, PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';
import { alsoSendingInWords } from '@/lib/shared/conversions/whereEventsGo';
import { OutcomeCounts } from '@/components/conversions/Outcomes';
import { useReconciliationQuery } from '@/store/reconciliationApi';
import { useAppsQuery, usePaymentsQuery } from '@/store/integrationsApi';

/** `/{orgId}/conversion`: every conversion, its state and how its last 24 hours went. */
export function ConversionsPage() {
  const { orgId, role } = useOrganizationContext();
  const now = useNow();
  const { data = [], isLoading, error } = useConversionsQuery(orgId ?? '', { skip: !orgId });
  const { data: apps } = useAppsQuery(orgId ?? '', { skip: !orgId });
  const { data: payments } = usePaymentsQuery(orgId ?? '', { skip: !orgId });
  const { data: counted } = useReconciliationQuery(orgId ?? '', { skip: !orgId });
  const countedOf = (id: string) => counted?.find((row) => row.id === id);
  const mayCreate = role ? can(role, 'conversion', 'create') : false;
  const newConversion = orgId && mayCreate && (
    <Link className="button" href={createConversionPath(orgId)}>
      New conversion
    </Link>
  );

  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Title>Conversions</Title>
      <div className="toolbar">
        <div>
          <h1>Conversions</h1>
          <p className="muted">Your form submissions and payments, sent from our servers to Google Ads, Meta and Microsoft Advertising.</p>
        </div>
        {data.length > 0 && newConversion}
      </div>
      {orgId && <DeadLettersNotice orgId={orgId} queue="conversions" />}
      {!orgId || !role || isLoading ? (
        <Spinner label="Loading conversions" />
      ) : error ? (
        <Alert>{messageOf(error, 'Could not load your conversions.')}</Alert>
      ) : data.length === 0 ? (
        <div className="empty-state stack" data-testid="empty-state" style={{ alignItems: 'center' }}>
          <p>
            No conversions yet. Send your website&apos;s form submissions or your payments to an ad platform so its bidding sees real
            results.
          </p>
          {newConversion}
        </div>
      ) : (
        <table className="table table--cards" aria-label="Conversions">
          <TableHead columns={['Name', 'Source', 'Sends to', 'Status', 'Last delivery', 'Last 24 h', 'Received, 7 days']} />
          <tbody>
            {data.map((conversion) => (
              <tr key={conversion.id}>
                <NameCell href={conversionPath(orgId, conversion.id)}>{conversion.name}</NameCell>
                <td data-label="Source">
                  <span className="cell-wrap">{sourceLabel(conversion.source, apps, payments)}</span>
                </td>
                <td data-label="Sends to">
                  <span className="cell-wrap">{targetLabel(conversion.destination.platform, conversion.destination.targetName)}</span>
                  {alsoSendingInWords(conversion, data, PLATFORM_LABELS[conversion.destination.platform]) && (
                    <span className="muted cell-wrap" style={{ display: 'block' }} data-testid="also-sending">
                      {alsoSendingInWords(conversion, data, PLATFORM_LABELS[conversion.destination.platform])}
                    </span>
                  )}
                </td>
                <td data-label="Status">
                  <ConversionStatusBadge status={conversion.status} pausedByPlan={conversion.pausedByPlan} />
                  {conversion.status === 'needs_reauth' && (
                    <>
                      {' '}
                      <Link
                        href={destinationPath(orgId, conversion.destination.destinationId)}
                        aria-label={`Reconnect the destination of ${conversion.name}`}
                      >
                        Reconnect
                      </Link>
                    </>
                  )}
                </td>
                <td data-label="Last delivery">
                  {conversion.lastDeliveryAt ? (
                    <RelativeTime iso={conversion.lastDeliveryAt} now={now} />
                  ) : (
                    <span className="muted">Never</span>
                  )}
                </td>
                <td data-label="Last 24 h">
                  <OutcomeCounts counts={conversion.last24h} />
                </td>
                <td data-label="Received, 7 days">
                  {isAdPlatform(conversion.destination.platform) ? (
                    <CountedShare summary={countedOf(conversion.id)?.summary} threshold={countedOf(conversion.id)?.threshold} />
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="actions">
                  <ConfigureButton href={conversionPath(orgId, conversion.id)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
