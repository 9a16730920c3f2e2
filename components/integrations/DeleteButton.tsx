import { useEffect, useState } from 'react';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import ConfirmDialog from '@/components/ui/ConfirmDialog';
import Spinner from '@/components/ui/Spinner';
import type { IntegrationKind } from '@/lib/integrations/platforms';
import { useDeleteIntegrationMutation, useUsageQuery } from '@/store/integrationsApi';

interface Props {
  orgId: string;
  kind: IntegrationKind;
  id: string;
  name: string;
  onDeleted: () => void;
}

function UsageCheck({ orgId, kind, id, onInUse }: { orgId: string; kind: IntegrationKind; id: string; onInUse: (inUse: boolean) => void }) {
  const { data, isFetching } = useUsageQuery({ orgId, kind, id }, { refetchOnMountOrArgChange: true });
  const users = data
    ? [...data.connections.map((c) => `connection “${c.name}”`), ...data.conversions.map((c) => `conversion “${c.name}”`), ...data.apps.map((a) => `app “${a.name}”`)]
    : null;
  const blocked = isFetching || !users || users.length > 0;
  useEffect(() => onInUse(blocked), [blocked, onInUse]);
  if (isFetching || !users) return <Spinner label="Checking what uses it" />;
  if (users.length === 0) return <p>Nothing uses it. Its login is removed from SignalBridge.</p>;
  return (
    <Alert>
      It is still used by {users.join(', ')}. Remove it from {users.length === 1 ? 'that' : 'those'} first.
    </Alert>
  );
}

/** Delete with confirmation; the dialog first says what still uses the object and then refuses. */
export default function DeleteButton({ orgId, kind, id, name, onDeleted }: Props) {
  const [open, setOpen] = useState(false);
  const [inUse, setInUse] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [remove, { isLoading }] = useDeleteIntegrationMutation();

  async function confirm() {
    const result = await remove({ orgId, kind, id });
    if ('error' in result) {
      setError(messageOf(result.error, `Could not delete this ${kind}.`));
      return;
    }
    setOpen(false);
    onDeleted();
  }

  return (
    <>
      <Button type="button" variant="secondary" className="button--small" onClick={() => (setError(null), setOpen(true))}>
        Delete
      </Button>
      <ConfirmDialog
        open={open}
        title={`Delete “${name}”?`}
        confirmLabel={`Delete ${kind}`}
        busy={isLoading}
        confirmDisabled={inUse}
        onConfirm={confirm}
        onCancel={() => setOpen(false)}
      >
        {open && <UsageCheck orgId={orgId} kind={kind} id={id} onInUse={setInUse} />}
        {error && <Alert>{error}</Alert>}
      </ConfirmDialog>
    </>
  );
}
