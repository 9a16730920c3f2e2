import { useEffect } from 'react';
import { IntercomProvider, useIntercom } from 'react-use-intercom';
import { apiRequest } from '@/lib/client/apiClient';
import { publicConfig } from '@/lib/shared/config';
import { useAppSelector } from '@/store/hooks';
import { selectUser } from '@/store/userSlice';

function IdentifiedChat() {
  const user = useAppSelector(selectUser);
  const { boot, shutdown } = useIntercom();

  useEffect(() => {
    if (!user.isAuthenticated || !user.uid) return;
    let cancelled = false;
    apiRequest<{ userHash: string }>('/api/getIntercomHash', { method: 'POST', body: { userId: user.uid } })
      .then(({ userHash }) => {
        if (!cancelled) boot({ userId: user.uid!, email: user.email ?? undefined, name: user.fullName ?? undefined, userHash });
      })
      // Logged only: the page goes on without the chat.
      .catch((error) => console.error('Could not start the support chat', error));
    return () => {
      cancelled = true;
      shutdown();
    };
  }, [user.isAuthenticated, user.uid, user.email, user.fullName, boot, shutdown]);

  return null;
}

/** The Intercom chat for signed-in users, identity-verified with a hash computed on our server. */
export default function SupportChat() {
  return (
    <IntercomProvider appId={publicConfig.intercomAppId}>
      <IdentifiedChat />
    </IntercomProvider>
  );
}
