import { messageOf } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import CodeBlock from '@/components/ui/CodeBlock';
import Spinner from '@/components/ui/Spinner';
import { canRevealPersonalData } from '@/lib/shared/permissions';
import { useDeliveryRowQuery, useRevealDeliveryRowMutation } from '@/store/conversionsApi';

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * One row of the delivery log opened: the event exactly as it went to the platform (identifiers hashed,
 * as on the wire), what the platform answered about it alone (a refusal naming it), and its answer to the
 * whole call (kept once per record). Read when opened, from the payloads kept beside the record. The
 * visitor's IP address and browser come hidden; an owner or admin may reveal them (the server notes it).
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
  const { role } = useOrganizationContext();
  const { data: opened, error, isLoading } = useDeliveryRowQuery({ orgId, id, deliveryId, eventId });
  const [reveal, revealed] = useRevealDeliveryRowMutation();
  const data = revealed.data ?? opened;
  if (isLoading) return <Spinner label="Loading what was sent" />;
  if (error || !data) return <Alert>{messageOf(error, 'Could not load what was sent for this event.')}</Alert>;
  const { exchange, row } = data;
  const hidden = data.hidden ?? [];
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
      {hidden.length > 0 && (
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: '0.5rem', alignItems: 'center' }}>
          <p className="muted" style={{ margin: 0 }}>
            The visitor’s IP address and browser are hidden
            {role && canRevealPersonalData(role) ? '.' : ': an owner or admin may reveal them.'}
          </p>
          {role && canRevealPersonalData(role) && (
            <Button
              type="button"
              variant="secondary"
              className="button--small"
              busy={revealed.isLoading}
              onClick={() => void reveal({ orgId, id, deliveryId, eventId })}
            >
              Reveal IP address and browser
            </Button>
          )}
        </div>
      )}
      {revealed.error && <Alert>{messageOf(revealed.error, 'Could not reveal them.')}</Alert>}
      {exchange.tooLarge ? (
        <p className="muted" style={{ margin: 0 }}>
          This event as sent was too large to keep.
        </p>
      ) : (
        <CodeBlock
          title={`What was sent for ${eventId} (email and phone hashed, exactly as the platform received it)`}
          code={pretty(exchange.sent ?? null)}
          testId="row-sent"
        />
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
