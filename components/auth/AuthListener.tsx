import { useEffect } from 'react';
import { useAppDispatch, useAppStore } from '@/store/hooks';
import { userSignedIn, userSignedOut } from '@/store/userSlice';

/**
 * Keeps the stored user in step with the provider: signed out there means forgotten here.
 * The Auth SDK loads after the first paint, so it stays out of every page's first-load JS.
 */
export default function AuthListener() {
  const dispatch = useAppDispatch();
  const store = useAppStore();
  useEffect(() => {
    let unsubscribe: (() => void) | undefined;
    let cancelled = false;
    void Promise.all([import('firebase/auth'), import('@/lib/firebase/auth')]).then(
      ([{ onAuthStateChanged }, { clientAuth, toProviderUser }]) => {
        if (cancelled) return;
        unsubscribe = onAuthStateChanged(clientAuth(), (user) => {
          const stored = store.getState().user;
          if (!user && stored.isAuthenticated) dispatch(userSignedOut());
          else if (user && (!stored.isAuthenticated || stored.uid !== user.uid)) {
            dispatch(userSignedIn(toProviderUser(user)));
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
