import Head from 'next/head';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useState } from 'react';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import { isCheckoutSessionValid } from '@/lib/client/billing';
import { hasActiveSubscription } from '@/lib/shared/billing/gate';
import { useAppDispatch } from '@/store/hooks';
import { fetchOrganization } from '@/store/thunks';

type Outcome = 'checking' | 'valid' | 'invalid' | 'error';

/** What the page says, as one state: never "confirmed" beside "not found". */
type View = 'checking' | 'activating' | 'confirmed' | 'not_found' | 'error';

const TITLES: Record<View, string> = {
  checking: 'Checking your payment',
  activating: 'Payment received',
  confirmed: 'Subscription confirmed',
  not_found: 'Checkout not found',
  error: 'We could not check your payment',
};

const viewOf = (outcome: Outcome, active: boolean): View =>
  outcome === 'valid' ? (active ? 'confirmed' : 'activating') : outcome === 'invalid' ? 'not_found' : outcome;

/** After Stripe Checkout: the session is checked against this organization, then the subscription is awaited. */
export function CheckoutSuccessPage() {
  const { query, isReady } = useRouter();
  const dispatch = useAppDispatch();
  const { orgId, document } = useOrganizationContext();
  const [outcome, setOutcome] = useState<Outcome>('checking');
  const [error, setError] = useState<string | null>(null);
  const sessionId = typeof query.session_id === 'string' ? query.session_id : '';
  const active = hasActiveSubscription(document?.subscription ?? null);
  const view = viewOf(outcome, active);

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
    if (view !== 'activating' || !orgId) return;
    const timer = setInterval(() => void dispatch(fetchOrganization(orgId)), 1500);
    return () => clearInterval(timer);
  }, [view, orgId, dispatch]);

  return (
    <section className="card stack" style={{ maxWidth: 560 }} data-testid="checkout-result" data-state={view}>
      <Head>
        <title>{`${TITLES[view]} · SignalBridge`}</title>
      </Head>
      <h1>{TITLES[view]}</h1>
      {view === 'checking' && <Spinner label="Checking your payment" />}
      {view === 'error' && <Alert>{error}</Alert>}
      {view === 'not_found' && <Alert>We could not find a completed checkout for this organization.</Alert>}
      {view === 'activating' && (
        <p className="muted">
          <Spinner label="Activating" /> Payment received. Activating your subscription…
        </p>
      )}
      {view === 'confirmed' && (
        <>
          <p>Your subscription is active. Your organization&apos;s pages are open.</p>
          <Link className="button" href={`/${encodeURIComponent(orgId!)}/connection`}>
            Go to connections
          </Link>
        </>
      )}
      {(view === 'not_found' || view === 'error') && orgId && (
        <Link href={`/${encodeURIComponent(orgId)}/subscription`}>Back to the plans</Link>
      )}
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
