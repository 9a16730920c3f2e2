import { useEffect } from 'react';
import { isAuthFlowRunning, syncSession } from '@/lib/client/auth/session';
import { useAppDispatch, useAppStore } from '@/store/hooks';
import { userSignedIn, userSignedOut } from '@/store/userSlice';

const FRESH_TOKEN_MS = 60 * 1000;

/**
 * Keeps the stored user and the server session in step with the provider: signed out there means
 * forgotten here; a new or refreshed ID token renews the session cookie. The Auth SDK loads after
 * the first paint, so it stays out of every page's first-load JS.
 */
export default function AuthListener() {
  const dispatch = useAppDispatch();
  const store = useAppStore();
  useEffect(() => {
    let unsubscribe: (() => void) | undefined;
    let cancelled = false;
    void Promise.all([import('firebase/auth'), import('@/lib/client/firebase/auth')]).then(
      ([{ onIdTokenChanged }, { clientAuth, toProviderUser }]) => {
        if (cancelled) return;
        unsubscribe = onIdTokenChanged(clientAuth(), async (user) => {
          if (isAuthFlowRunning()) return;
          const stored = store.getState().user;
          if (!user) {
            if (stored.isAuthenticated) dispatch(userSignedOut());
            await syncSession(null).catch(() => undefined);
            return;
          }
          if (!stored.isAuthenticated || stored.uid !== user.uid) dispatch(userSignedIn(toProviderUser(user)));
          // A token minted just now (sign-in elsewhere, hourly refresh) renews the session cookie.
          const { issuedAtTime } = await user.getIdTokenResult();
          if (Date.now() - Date.parse(issuedAtTime) < FRESH_TOKEN_MS) {
            await syncSession(user).catch((error) => console.error('Could not renew the session', error));
          }
        });
      },
    );
    return () => {
      cancelled = true;
      unsubscribe?.();
    };
  }, [dispatch, store]);
  return null;
}
