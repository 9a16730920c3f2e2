import Alert from '@/components/ui/Alert';

export interface NoticeValue {
  ok: boolean;
  text: string;
}

/** The outcome of an action: a polite status when it worked, an alert when it did not. */
export default function Notice({ notice }: { notice: NoticeValue | null }) {
  if (!notice) return null;
  return notice.ok ? (
    <div role="status" className="alert alert--success">
      {notice.text}
    </div>
  ) : (
    <Alert>{notice.text}</Alert>
  );
}
