import { useState } from 'react';
import Button from '@/components/ui/Button';
import { authErrorMessage, AUTH_MESSAGES } from '@/lib/client/auth/errors';
import { loadAuthFlows, loadedAuthFlows } from '@/lib/client/auth/lazyFlows';
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
      // Called at once when loaded (the popup keeps the click's user activation); else after the load.
      const flows = loadedAuthFlows() ?? (await loadAuthFlows());
      dispatch(userSignedIn(await flows.signInWithGoogle()));
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
