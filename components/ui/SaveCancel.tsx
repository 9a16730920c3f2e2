import Button from '@/components/ui/Button';

/** The Save and Cancel buttons at the foot of an edit form (Save submits it). */
export default function SaveCancel({ busy, onCancel }: { busy: boolean; onCancel: () => void }) {
  return (
    <div className="actions" style={{ justifyContent: 'flex-start' }}>
      <Button type="submit" busy={busy}>
        Save
      </Button>
      <Button type="button" variant="secondary" onClick={onCancel}>
        Cancel
      </Button>
    </div>
  );
}
