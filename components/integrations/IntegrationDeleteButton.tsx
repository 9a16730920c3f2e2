import { useEffect } from 'react';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import DeleteButton from '@/components/ui/DeleteButton';
import Spinner from '@/components/ui/Spinner';
import type { IntegrationKind } from '@/lib/shared/integrations/platforms';
import { useDeleteIntegrationMutation, useUsageQuery } from '@/store/integrationsApi';

interface Props {
  orgId: string;
  kind: IntegrationKind;
  id: string;
  name: string;
  onDeleted: () => void;
  small?: boolean;
}

/** Says what still uses the object, and blocks the delete until nothing does. */
function UsageCheck({
  orgId,
  kind,
  id,
  onBlocked,
}: {
  orgId: string;
  kind: IntegrationKind;
  id: string;
  onBlocked: (blocked: boolean) => void;
}) {
  const { data, isFetching } = useUsageQuery({ orgId, kind, id }, { refetchOnMountOrArgChange: true });
  const users = data
    ? [
        ...data.connections.map((c) => `connection “${c.name}”`),
        ...data.conversions.map((c) => `conversion “${c.name}”`),
        ...data.apps.map((a) => `app “${a.name}”`),
      ]
    : null;
  const blocked = isFetching || !users || users.length > 0;
  useEffect(() => onBlocked(blocked), [blocked, onBlocked]);
  if (isFetching || !users) return <Spinner label="Checking what uses it" />;
  const sharing = data?.sharedLogin ?? [];
  if (users.length === 0 && sharing.length > 0)
    return (
      <p data-testid="login-kept">
        Nothing uses it. Its login stays in SignalBridge: {sharing.map((other) => `the ${other.kind} “${other.name}”`).join(', ')}{' '}
        {sharing.length === 1 ? 'uses' : 'use'} the same login and {sharing.length === 1 ? 'keeps' : 'keep'} working.
      </p>
    );
  if (users.length === 0) return <p>Nothing uses it. Its login is removed from SignalBridge.</p>;
  return (
    <Alert>
      It is still used by {users.join(', ')}. Remove it from {users.length === 1 ? 'that' : 'those'} first.
    </Alert>
  );
}

/**
 * A source's or destination's delete button: the one DeleteButton (components/ui) with a usage check that says
 * what still uses the object and blocks the delete until nothing does.
 */
export default function IntegrationDeleteButton({ orgId, kind, id, name, onDeleted, small }: Props) {
  const [remove] = useDeleteIntegrationMutation();
  return (
    <DeleteButton
      name={name}
      confirmLabel={`Delete ${kind}`}
      small={small}
      explanation={(setBlocked) => <UsageCheck orgId={orgId} kind={kind} id={id} onBlocked={setBlocked} />}
      onDelete={async () => {
        const result = await remove({ orgId, kind, id });
        return 'error' in result ? messageOf(result.error, `Could not delete this ${kind}.`) : null;
      }}
      onDeleted={onDeleted}
    />
  );
}
