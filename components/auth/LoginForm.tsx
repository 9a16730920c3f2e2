import Link from 'next/link';
import { useRouter } from 'next/router';
import { useState } from 'react';
import AuthCard from '@/components/auth/AuthCard';
import CredentialFields from '@/components/auth/CredentialFields';
import { useAuthSubmit } from '@/components/auth/useAuthSubmit';
import { AUTH_MESSAGES } from '@/lib/client/auth/errors';
import { loadAuthFlows } from '@/lib/client/auth/lazyFlows';
import { useAppDispatch } from '@/store/hooks';
import { userSignedIn } from '@/store/userSlice';

/** Email + password or Google; the route guard then sends the user to the callback or /organizations. */
export default function LoginForm() {
  const dispatch = useAppDispatch();
  const { query } = useRouter();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, setError, busy, onSubmit } = useAuthSubmit(async () => {
    const { signInWithEmail } = await loadAuthFlows();
    dispatch(userSignedIn(await signInWithEmail(email, password)));
  }, AUTH_MESSAGES.loginFailed);

  return (
    <AuthCard
      title="Log in to SignalBridge"
      error={error}
      notice={
        query.registered === '1' ? 'Your account is ready. We sent you a link to verify your email address. Log in to continue.' : undefined
      }
      onSubmit={onSubmit}
      footer={
        <>
          <Link href="/forgotPassword">Forgot your password?</Link>
          <span>
            New here? <Link href="/signUp">Create an account</Link>
          </span>
        </>
      }
    >
      <CredentialFields
        email={email}
        password={password}
        onEmailChange={setEmail}
        onPasswordChange={setPassword}
        passwordAutoComplete="current-password"
        submitLabel="Log in"
        busy={busy}
        onGoogleError={setError}
      />
    </AuthCard>
  );
}
