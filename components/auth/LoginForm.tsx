import { signInWithEmailAndPassword } from 'firebase/auth';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { useState, type FormEvent } from 'react';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { authErrorMessage } from '@/lib/auth/errors';
import { clientAuth, toProviderUser } from '@/lib/firebase/auth';
import { useAppDispatch } from '@/store/hooks';
import { userSignedIn } from '@/store/userSlice';

export default function LoginForm() {
  const dispatch = useAppDispatch();
  const router = useRouter();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { user } = await signInWithEmailAndPassword(clientAuth(), email, password);
      dispatch(userSignedIn(toProviderUser(user)));
      await router.push('/organizations');
    } catch (caught) {
      setError(authErrorMessage(caught));
      setBusy(false);
    }
  }

  return (
    <form className="card auth-card stack" onSubmit={submit} noValidate aria-labelledby="login-title">
      <h1 id="login-title">Log in to SignalBridge</h1>
      {error && <Alert>{error}</Alert>}
      <TextField label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <TextField
        label="Password"
        type="password"
        name="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <Button type="submit" busy={busy}>
        Log in
      </Button>
      <p className="muted">
        <Link href="/forgotPassword">Forgot your password?</Link> · New here? <Link href="/signUp">Create an account</Link>
      </p>
    </form>
  );
}
