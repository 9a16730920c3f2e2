import { useState, type ReactNode } from 'react';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import ConfirmDialog from '@/components/ui/ConfirmDialog';

interface Props {
  /** What is deleted, for the title: “Delete “{name}”?”. */
  name: string;
  confirmLabel: string;
  /** The dialog's body; rendered only while it is open (it may load what it shows). */
  explanation: (setBlocked: (blocked: boolean) => void) => ReactNode;
  /** Deletes; resolves to an error message to show, or null when done. */
  onDelete: () => Promise<string | null>;
  onDeleted: () => void;
  small?: boolean;
}

/** Delete with confirmation: the dialog explains, may block (say why), and keeps the server's refusal in view. */
export default function DeleteButton({ name, confirmLabel, explanation, onDelete, onDeleted, small = false }: Props) {
  const [open, setOpen] = useState(false);
  const [blocked, setBlocked] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function confirm() {
    setBusy(true);
    const failure = await onDelete();
    setBusy(false);
    if (failure) {
      setError(failure);
      return;
    }
    setOpen(false);
    onDeleted();
  }

  return (
    <>
      <Button
        type="button"
        variant="secondary"
        className={small ? 'button--small' : undefined}
        onClick={() => {
          setError(null);
          setBlocked(false);
          setOpen(true);
        }}
      >
        Delete
      </Button>
      <ConfirmDialog
        open={open}
        title={`Delete “${name}”?`}
        confirmLabel={confirmLabel}
        busy={busy}
        confirmDisabled={blocked}
        onConfirm={confirm}
        onCancel={() => setOpen(false)}
      >
        {open && explanation(setBlocked)}
        {error && <Alert>{error}</Alert>}
      </ConfirmDialog>
    </>
  );
}
