import { useCallback, useEffect, useState } from 'react';
import { api } from '@/store/api';
import { useAppDispatch } from '@/store/hooks';

export type VerificationStatus = 'checking' | 'verified' | 'unverified';

// The Auth SDK loads on first use, as everywhere else, so it stays out of the pages' first-load JS.
const verification = () => import('@/lib/client/auth/emailVerification');

/**
 * Whether the signed-in user's email is verified, with the two ways forward for one that is not: send
 * the link again, and check again (also done whenever the tab gets focus back, e.g. from the inbox).
 */
export function useEmailVerification() {
  const dispatch = useAppDispatch();
  const [status, setStatus] = useState<VerificationStatus>('checking');

  useEffect(() => {
    let cancelled = false;
    void verification()
      .then(({ isEmailVerified }) => isEmailVerified())
      .catch(() => false)
      .then((verified) => {
        if (!cancelled) setStatus(verified ? 'verified' : 'unverified');
      });
    return () => {
      cancelled = true;
    };
  }, []);

  const recheck = useCallback(async (): Promise<boolean> => {
    const verified = await (await verification()).recheckEmailVerified();
    if (verified) {
      // What the server would not show an unverified email, it shows now.
      dispatch(api.util.invalidateTags(['PendingInvitations']));
      setStatus('verified');
    }
    return verified;
  }, [dispatch]);

  useEffect(() => {
    if (status !== 'unverified') return;
    const onFocus = () => void recheck().catch(() => undefined);
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, [status, recheck]);

  const resend = useCallback(async () => (await verification()).resendVerificationEmail(), []);

  return { status, recheck, resend };
}
