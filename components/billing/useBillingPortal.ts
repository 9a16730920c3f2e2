import { useState } from 'react';
import { openBillingPortal } from '@/lib/client/billing';

/** Opens the Stripe customer portal; busy until the browser leaves, an error if it cannot. */
export function useBillingPortal(orgId: string | null) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function open() {
    if (!orgId) return;
    setBusy(true);
    setError(null);
    try {
      await openBillingPortal(orgId);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'An unexpected error occurred');
      setBusy(false);
    }
  }

  return { open, busy, error };
}
