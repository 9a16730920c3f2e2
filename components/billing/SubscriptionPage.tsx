import Head from 'next/head';
import Link from 'next/link';
import { useState } from 'react';
import { useBillingPortal } from '@/components/billing/useBillingPortal';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import { createBillingCustomer, startCheckout } from '@/lib/client/billing';
import { hasActiveSubscription, holdsLiveSubscription, PAST_DUE_GRACE_DAYS } from '@/lib/shared/billing/gate';
import { planNameOf } from '@/lib/shared/billing/entitlements';
import { can } from '@/lib/shared/permissions';
import { usePlansQuery } from '@/store/api';

const money = (amount: number, currency: string) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 0 }).format(amount / 100);

/**
 * `/{orgId}/subscription`: the plans, the current status; owners and admins subscribe, or — once the
 * organization holds a subscription — change plan, card or cancel in the Stripe customer portal (one
 * subscription per organization: a second checkout would bill twice).
 */
export default function SubscriptionPage() {
  const { orgId, user, role, document } = useOrganizationContext();
  const { data: plans, isLoading, isError } = usePlansQuery();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const portal = useBillingPortal(orgId);
  const manage = role !== null && can(role, 'billing', 'update');
  const subscription = document?.subscription ?? null;
  const active = hasActiveSubscription(subscription);
  const live = holdsLiveSubscription(subscription);

  async function choose(plan: string) {
    if (!orgId || !user.uid || !user.email) return;
    setBusy(plan);
    setError(null);
    try {
      await createBillingCustomer({ email: user.email, organizationId: orgId, userId: user.uid });
      await startCheckout(orgId, plan);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'An unexpected error occurred');
      setBusy(null);
    }
  }

  return (
    <section className="stack" style={{ gap: '1.5rem' }}>
      <Head>
        <title>Subscription · SignalBridge</title>
      </Head>
      <div>
        <h1>Subscription{document ? ` for ${document.name}` : ''}</h1>
        <p className="muted" data-testid="subscription-status">
          {!document
            ? 'Loading…'
            : active
              ? `Your ${planNameOf(subscription?.plan)} plan is ${subscription?.status}.`
              : subscription?.status === 'past_due'
                ? `Your last payment failed and the ${PAST_DUE_GRACE_DAYS}-day grace period is over. Update your card to continue.`
                : 'This organization has no active subscription. Choose a plan to open its pages.'}
        </p>
      </div>
      {(error ?? portal.error) && <Alert>{error ?? portal.error}</Alert>}
      {!manage && document && !active && (
        <div role="status" className="alert alert--info">
          Only owners and admins of this organization can subscribe. Ask one of them to choose a plan.
        </div>
      )}
      {manage && live && (
        <div role="status" className="alert alert--info stack" style={{ gap: '0.5rem' }} data-testid="change-plan">
          <span>
            {document?.has_billing_account
              ? 'To change your plan, update your card or cancel, open Manage billing.'
              : 'This organization’s subscription is managed outside SignalBridge.'}
          </span>
          {document?.has_billing_account && (
            <div>
              <Button type="button" busy={portal.busy} onClick={portal.open}>
                Manage billing
              </Button>
            </div>
          )}
        </div>
      )}
      {isError && <Alert>We could not load the plans. Please reload the page.</Alert>}
      {isLoading ? (
        <Spinner label="Loading plans" />
      ) : (
        <ul className="org-list" aria-label="Plans">
          {plans?.map((plan) => (
            <li key={plan.id} className="card stack">
              <h2 style={{ margin: 0 }}>
                {plan.name} {live && subscription?.plan === plan.id && <span className="badge">Current plan</span>}
              </h2>
              <p style={{ margin: 0 }}>
                <strong style={{ fontSize: '1.5rem' }}>{money(plan.amount, plan.currency)}</strong> <span className="muted">per month</span>
              </p>
              <ul className="muted" style={{ paddingLeft: '1.1rem', margin: 0 }}>
                {plan.features.map((feature) => (
                  <li key={feature}>{feature}</li>
                ))}
              </ul>
              {manage && !live && (
                <Button type="button" busy={busy === plan.id} disabled={busy !== null} onClick={() => choose(plan.id)}>
                  Choose {plan.name}
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="actions" style={{ justifyContent: 'flex-start' }}>
        {manage && !live && document?.has_billing_account && (
          <Button type="button" variant="secondary" busy={portal.busy} onClick={portal.open}>
            Manage billing
          </Button>
        )}
        {active && orgId && (
          <Link className="button" href={`/${encodeURIComponent(orgId)}/connection`}>
            Go to connections
          </Link>
        )}
      </div>
    </section>
  );
}
