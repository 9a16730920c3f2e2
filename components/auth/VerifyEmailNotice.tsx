import { useState } from 'react';
import type { useEmailVerification } from '@/components/auth/useEmailVerification';
import Button from '@/components/ui/Button';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import { authErrorMessage } from '@/lib/client/auth/errors';

interface VerifyEmailNoticeProps {
  email: string;
  verification: ReturnType<typeof useEmailVerification>;
}

/** Invitations are shown only to a verified email: says so, and offers the link again. */
export default function VerifyEmailNotice({ email, verification }: VerifyEmailNoticeProps) {
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const [busy, setBusy] = useState<'resend' | 'recheck' | null>(null);

  async function run(action: 'resend' | 'recheck') {
    setBusy(action);
    setNotice(null);
    try {
      if (action === 'resend') {
        await verification.resend();
        setNotice({ ok: true, text: `We sent a new link to ${email}. Open it, then come back here.` });
      } else if (!(await verification.recheck())) {
        setNotice({ ok: false, text: `Your email is not verified yet. Open the link we sent to ${email}.` });
      }
    } catch (error) {
      setNotice({ ok: false, text: authErrorMessage(error) });
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="card stack" aria-labelledby="verify-email-title">
      <h2 id="verify-email-title">Verify your email</h2>
      <p>
        Verify your email address to see invitations sent to <strong>{email}</strong>. We sent you a link when you signed up.
      </p>
      <Notice notice={notice} />
      <div className="actions" style={{ justifyContent: 'flex-start' }}>
        <Button type="button" variant="secondary" busy={busy === 'resend'} disabled={busy !== null} onClick={() => run('resend')}>
          Resend verification email
        </Button>
        <Button type="button" variant="secondary" busy={busy === 'recheck'} disabled={busy !== null} onClick={() => run('recheck')}>
          I have verified my email
        </Button>
      </div>
    </section>
  );
}
