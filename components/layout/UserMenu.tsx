import { useRouter } from 'next/router';
import { useState } from 'react';
import Button from '@/components/ui/Button';
import { signOutEverywhere } from '@/lib/auth/session';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { selectUser } from '@/store/userSlice';

export default function UserMenu() {
  const user = useAppSelector(selectUser);
  const dispatch = useAppDispatch();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  if (!user.isAuthenticated) return null;

  async function signOut() {
    setBusy(true);
    await signOutEverywhere(dispatch, () => router.push('/login'));
  }

  return (
    <div className="user-menu">
      <span className="muted" data-testid="signed-in-email">
        {user.email}
      </span>
      <Button variant="secondary" busy={busy} onClick={signOut}>
        Sign out
      </Button>
    </div>
  );
}
