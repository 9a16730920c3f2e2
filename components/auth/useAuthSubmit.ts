import { useEffect, useState, type FormEvent } from 'react';
import { authErrorMessage, AUTH_MESSAGES } from '@/lib/client/auth/errors';
import { loadAuthFlows } from '@/lib/client/auth/lazyFlows';

/** The submit of a sign-in page: busy while the action runs, the provider's message when it fails. */
export function useAuthSubmit(action: () => Promise<void>, fallback: string = AUTH_MESSAGES.unexpected) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The flows (and the Auth SDK) load once the page is shown, ready before the first press.
  useEffect(() => {
    void loadAuthFlows().catch(() => undefined);
  }, []);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(authErrorMessage(caught, fallback));
    } finally {
      setBusy(false);
    }
  }

  return { error, setError, busy, onSubmit };
}
