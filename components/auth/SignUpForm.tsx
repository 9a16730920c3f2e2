import Link from 'next/link';
import { useRouter } from 'next/router';
import { useState, type FormEvent } from 'react';
import AuthCard from '@/components/auth/AuthCard';
import GoogleSignInButton from '@/components/auth/GoogleSignInButton';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { authErrorMessage } from '@/lib/auth/errors';
import { registerWithEmail } from '@/lib/auth/flows';

/** Registration: no client-side field checks, only what the provider says (SPEC.md §5). */
export default function SignUpForm() {
  const router = useRouter();
  const [fullName, setFullName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await registerWithEmail(fullName.trim(), email, password);
      await router.push('/login?registered=1');
    } catch (caught) {
      setError(authErrorMessage(caught));
      setBusy(false);
    }
  }

  return (
    <AuthCard
      title="Create your account"
      error={error}
      onSubmit={submit}
      footer={
        <span>
          Already have an account? <Link href="/login">Log in</Link>
        </span>
      }
    >
      <TextField label="Full name" name="name" autoComplete="name" value={fullName} onChange={(e) => setFullName(e.target.value)} />
      <TextField label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <TextField
        label="Password"
        type="password"
        name="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <Button type="submit" busy={busy}>
        Create account
      </Button>
      <div className="divider">or</div>
      <GoogleSignInButton onError={setError} />
    </AuthCard>
  );
}
