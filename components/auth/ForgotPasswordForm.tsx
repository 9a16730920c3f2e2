import Link from 'next/link';
import { useState } from 'react';
import AuthCard from '@/components/auth/AuthCard';
import { useAuthSubmit } from '@/components/auth/useAuthSubmit';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { loadAuthFlows } from '@/lib/client/auth/lazyFlows';

export default function ForgotPasswordForm() {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const { error, busy, onSubmit } = useAuthSubmit(async () => {
    const { requestPasswordReset } = await loadAuthFlows();
    await requestPasswordReset(email);
    setSentTo(email);
  });

  return (
    <AuthCard
      title="Reset your password"
      error={error}
      notice={
        sentTo && `If an account exists for ${sentTo}, we sent a link to reset the password. Open it to choose a new password, then log in.`
      }
      onSubmit={onSubmit}
      footer={<Link href="/login">Back to log in</Link>}
    >
      <TextField label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <Button type="submit" busy={busy}>
        Send reset link
      </Button>
    </AuthCard>
  );
}
