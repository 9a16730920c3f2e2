import { useState } from 'react';
import Button from '@/components/ui/Button';
import { authErrorMessage, AUTH_MESSAGES } from '@/lib/client/auth/errors';
import { signInWithGoogle } from '@/lib/client/auth/flows';
import { useAppDispatch } from '@/store/hooks';
import { userSignedIn } from '@/store/userSlice';

/** The federated popup sign-in; the route guard takes the user on once the store has them. */
export default function GoogleSignInButton({ onError }: { onError: (message: string | null) => void }) {
  const dispatch = useAppDispatch();
  const [busy, setBusy] = useState(false);

  async function signIn() {
    setBusy(true);
    onError(null);
    try {
      dispatch(userSignedIn(await signInWithGoogle()));
    } catch (error) {
      onError(authErrorMessage(error, AUTH_MESSAGES.loginFailed));
      setBusy(false);
    }
  }

  return (
    <Button type="button" variant="secondary" busy={busy} onClick={signIn}>
      Continue with Google
    </Button>
  );
}
