import Router, { useRouter } from 'next/router';
import { useState } from 'react';
import Button from '@/components/ui/Button';
import { signOutEverywhere, whileAuthFlowRuns } from '@/lib/client/auth/session';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { selectUser, userSignedOut } from '@/store/userSlice';

export default function UserMenu() {
  const user = useAppSelector(selectUser);
  const dispatch = useAppDispatch();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  if (!user.isAuthenticated) return null;

  async function signOut() {
    setBusy(true);
    // Leave the page first, while the ID token still exists: its queries unsubscribe, so none
    // refetches without a token (a 401) when signing out resets the cached API state.
    await whileAuthFlowRuns(async () => {
      await router.push('/login').catch(() => false);
      await signOutEverywhere(
        () => dispatch(userSignedOut()),
        async () => {
          if (Router.pathname !== '/login') await router.push('/login');
        },
      );
    });
  }

  return (
    <div className="user-menu">
      <span className="muted user-menu__email" data-testid="signed-in-email" title={user.email ?? undefined}>
        {user.email}
      </span>
      <Button variant="secondary" busy={busy} onClick={signOut}>
        Sign out
      </Button>
    </div>
  );
}
