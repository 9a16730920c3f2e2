import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import AuthCard from '@/components/auth/AuthCard';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { authErrorMessage } from '@/lib/auth/errors';
import { requestPasswordReset } from '@/lib/auth/flows';

export default function ForgotPasswordForm() {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await requestPasswordReset(email);
      setSentTo(email);
    } catch (caught) {
      setError(authErrorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthCard
      title="Reset your password"
      error={error}
      notice={sentTo && `We sent a link to ${sentTo}. Open it to choose a new password, then log in.`}
      onSubmit={submit}
      footer={<Link href="/login">Back to log in</Link>}
    >
      <TextField label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <Button type="submit" busy={busy}>
        Send reset link
      </Button>
    </AuthCard>
  );
}
