import Link from 'next/link';
import { useRouter } from 'next/router';
import { useState } from 'react';
import AuthCard from '@/components/auth/AuthCard';
import CredentialFields from '@/components/auth/CredentialFields';
import { useAuthSubmit } from '@/components/auth/useAuthSubmit';
import TextField from '@/components/ui/TextField';
import { loadAuthFlows } from '@/lib/client/auth/lazyFlows';

/** Registration: no client-side field checks, only what the provider says (docs/PRODUCT.md §7). */
export default function SignUpForm() {
  const router = useRouter();
  const [fullName, setFullName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, setError, busy, onSubmit } = useAuthSubmit(async () => {
    const { registerWithEmail } = await loadAuthFlows();
    await registerWithEmail(fullName.trim(), email, password);
    await router.push('/login?registered=1');
  });

  return (
    <AuthCard
      title="Create your account"
      error={error}
      onSubmit={onSubmit}
      footer={
        <span>
          Already have an account? <Link href="/login">Log in</Link>
        </span>
      }
    >
      <TextField label="Full name" name="name" autoComplete="name" value={fullName} onChange={(e) => setFullName(e.target.value)} />
      <CredentialFields
        email={email}
        password={password}
        onEmailChange={setEmail}
        onPasswordChange={setPassword}
        passwordAutoComplete="new-password"
        submitLabel="Create account"
        busy={busy}
        onGoogleError={setError}
      />
    </AuthCard>
  );
}
