import { useState, type FormEvent } from 'react';
import { authErrorMessage, AUTH_MESSAGES } from '@/lib/client/auth/errors';

/** The submit of a sign-in page: busy while the action runs, the provider's message when it fails. */
export function useAuthSubmit(action: () => Promise<void>, fallback: string = AUTH_MESSAGES.unexpected) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

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
