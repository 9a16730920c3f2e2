import styles from '@/components/conversions/conversions.module.css';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import { useDeliveryRowQuery } from '@/store/conversionsApi';

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * One row of the delivery log opened: the event exactly as it went to the platform (identifiers hashed,
 * as on the wire) and what the platform answered for it. Read when opened, from the payloads kept
 * beside the record.
 */
export default function RowDebugger({
  orgId,
  id,
  deliveryId,
  eventId,
}: {
  orgId: string;
  id: string;
  deliveryId: string;
  eventId: string;
}) {
  const { data, error, isLoading } = useDeliveryRowQuery({ orgId, id, deliveryId, eventId });
  if (isLoading) return <Spinner label="Loading what was sent" />;
  if (error || !data) return <Alert>{messageOf(error, 'Could not load what was sent for this event.')}</Alert>;
  const { exchange, row } = data;
  if (!exchange) {
    return (
      <p className="muted" style={{ margin: 0 }} data-testid="row-debugger">
        {row.status === 'not_sent' || row.status === 'held' || row.status === 'failed'
          ? 'Nothing of this event reached the platform in this call.'
          : 'What was sent for this event was not kept: BigQuery and Mixpanel keep no payloads here, a platform that refused the whole call names no row, and calls logged before payloads were kept have none.'}
      </p>
    );
  }
  if (exchange.tooLarge) {
    return (
      <p className="muted" style={{ margin: 0 }} data-testid="row-debugger">
        This event as sent was too large to keep.
      </p>
    );
  }
  return (
    <div className={`stack ${styles.debugger}`} data-testid="row-debugger" style={{ gap: '0.5rem' }}>
      <h3 style={{ margin: 0, fontSize: '0.95rem' }}>Sent (hashed, as on the wire)</h3>
      <pre tabIndex={0} aria-label={`Payload sent for ${eventId}`} data-testid="row-sent">
        {pretty(exchange.sent ?? null)}
      </pre>
      <h3 style={{ margin: 0, fontSize: '0.95rem' }}>The platform’s answer</h3>
      <pre tabIndex={0} aria-label={`The platform's answer for ${eventId}`} data-testid="row-answer">
        {pretty(exchange.answer ?? null)}
      </pre>
    </div>
  );
}
