import Link from 'next/link';
import { useRouter } from 'next/router';
import { useState, type FormEvent } from 'react';
import AuthCard from '@/components/auth/AuthCard';
import GoogleSignInButton from '@/components/auth/GoogleSignInButton';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';
import { authErrorMessage, AUTH_MESSAGES } from '@/lib/auth/errors';
import { signInWithEmail } from '@/lib/auth/flows';
import { useAppDispatch } from '@/store/hooks';
import { userSignedIn } from '@/store/userSlice';

/** Email + password or Google; the route guard then sends the user to the callback or /organizations. */
export default function LoginForm() {
  const dispatch = useAppDispatch();
  const { query } = useRouter();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      dispatch(userSignedIn(await signInWithEmail(email, password)));
    } catch (caught) {
      setError(authErrorMessage(caught, AUTH_MESSAGES.loginFailed));
      setBusy(false);
    }
  }

  return (
    <AuthCard
      title="Log in to SignalBridge"
      error={error}
      notice={query.registered === '1' ? 'Your account is ready. Log in to continue.' : undefined}
      onSubmit={submit}
      footer={
        <>
          <Link href="/forgotPassword">Forgot your password?</Link>
          <span>
            New here? <Link href="/signUp">Create an account</Link>
          </span>
        </>
      }
    >
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
      <div className="divider">or</div>
      <GoogleSignInButton onError={setError} />
    </AuthCard>
  );
}
