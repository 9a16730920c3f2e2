import Head from 'next/head';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useState } from 'react';
import { useOrganizationContext } from '@/components/team/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import { isCheckoutSessionValid } from '@/lib/billing/client';
import { hasActiveSubscription } from '@/lib/billing/gate';
import { useAppDispatch } from '@/store/hooks';
import { fetchOrganization } from '@/store/thunks';

type Outcome = 'checking' | 'valid' | 'invalid' | 'error';

/** After Stripe Checkout: the session is checked against this organization, then the subscription is awaited. */
export function CheckoutSuccessPage() {
  const { query, isReady } = useRouter();
  const dispatch = useAppDispatch();
  const { orgId, document } = useOrganizationContext();
  const [outcome, setOutcome] = useState<Outcome>('checking');
  const [error, setError] = useState<string | null>(null);
  const sessionId = typeof query.session_id === 'string' ? query.session_id : '';
  const active = hasActiveSubscription(document?.subscription ?? null);

  useEffect(() => {
    if (!isReady || !orgId) return;
    let cancelled = false;
    (sessionId ? isCheckoutSessionValid(orgId, sessionId) : Promise.resolve(false))
      .then((valid) => !cancelled && setOutcome(valid ? 'valid' : 'invalid'))
      .catch((caught: Error) => {
        if (cancelled) return;
        setOutcome('error');
        setError(caught.message);
      });
    return () => {
      cancelled = true;
    };
  }, [isReady, orgId, sessionId]);

  // Stripe's webhook may land a moment after the redirect: look again until the subscription shows.
  useEffect(() => {
    if (outcome !== 'valid' || active || !orgId) return;
    const timer = setInterval(() => void dispatch(fetchOrganization(orgId)), 1500);
    return () => clearInterval(timer);
  }, [outcome, active, orgId, dispatch]);

  return (
    <section className="card stack" style={{ maxWidth: 560 }}>
      <Head>
        <title>Subscription confirmed · SignalBridge</title>
      </Head>
      <h1>{outcome === 'valid' ? 'Thank you!' : 'Subscription'}</h1>
      {outcome === 'checking' && <Spinner label="Checking your payment" />}
      {outcome === 'error' && <Alert>{error}</Alert>}
      {outcome === 'invalid' && <Alert>We could not find a completed checkout for this organization.</Alert>}
      {outcome === 'valid' &&
        (active ? (
          <>
            <p>Your subscription is active. Your organization&apos;s pages are open.</p>
            <Link className="button" href={`/${encodeURIComponent(orgId!)}/connection`}>
              Go to connections
            </Link>
          </>
        ) : (
          <p className="muted">
            <Spinner label="Activating" /> Payment received. Activating your subscription…
          </p>
        ))}
      {outcome !== 'valid' && orgId && <Link href={`/${encodeURIComponent(orgId)}/subscription`}>Back to the plans</Link>}
    </section>
  );
}

export function CheckoutFailurePage() {
  const { orgId } = useOrganizationContext();
  return (
    <section className="card stack" style={{ maxWidth: 560 }}>
      <Head>
        <title>Subscription not completed · SignalBridge</title>
      </Head>
      <h1>Subscription not completed</h1>
      <p className="muted">The checkout was cancelled or the payment did not go through. Nothing was charged.</p>
      {orgId && (
        <Link className="button" href={`/${encodeURIComponent(orgId)}/subscription`}>
          Back to the plans
        </Link>
      )}
    </section>
  );
}
