import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import CodeBlock from '@/components/ui/CodeBlock';
import Spinner from '@/components/ui/Spinner';
import { useDeliveryRowQuery } from '@/store/conversionsApi';

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * One row of the delivery log opened: the event exactly as it went to the platform (identifiers hashed,
 * as on the wire), what the platform answered about it alone (a refusal naming it), and its answer to the
 * whole call (kept once per record). Read when opened, from the payloads kept beside the record.
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
  return (
    <div className="stack" data-testid="row-debugger" style={{ gap: '0.75rem' }}>
      {exchange.tooLarge ? (
        <p className="muted" style={{ margin: 0 }}>
          This event as sent was too large to keep.
        </p>
      ) : (
        <CodeBlock title={`Sent for ${eventId} (hashed, as on the wire)`} code={pretty(exchange.sent ?? null)} testId="row-sent" />
      )}
      {exchange.answer !== undefined && (
        <CodeBlock title={`The platform’s answer about ${eventId}`} code={pretty(exchange.answer)} testId="row-answer" />
      )}
      {exchange.requestAnswer !== undefined && (
        <CodeBlock title="The platform’s answer to the whole call" code={pretty(exchange.requestAnswer)} testId="row-request-answer" />
      )}
      {exchange.answer === undefined && exchange.requestAnswer === undefined && (
        <p className="muted" style={{ margin: 0 }}>
          No answer from the platform was kept for this call.
        </p>
      )}
    </div>
  );
}
