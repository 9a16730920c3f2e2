import Head from 'next/head';
import Link from 'next/link';
import { useState } from 'react';
import PlanCard, { type PlanAction } from '@/components/billing/PlanCard';
import PlanQuestions from '@/components/billing/PlanQuestions';
import { useBillingPortal } from '@/components/billing/useBillingPortal';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import { createBillingCustomer, startCheckout } from '@/lib/client/billing';
import { hasActiveSubscription, holdsLiveSubscription, PAST_DUE_GRACE_DAYS } from '@/lib/shared/billing/gate';
import { planNameOf, PLAN_IDS } from '@/lib/shared/billing/entitlements';
import type { PlanWithPrice } from '@/lib/shared/billing/plans';
import { can } from '@/lib/shared/permissions';
import { usePlansQuery } from '@/store/api';

/** A plan above the current one is an upgrade; one below, a switch. */
const rankOf = (plan: string | null | undefined) => PLAN_IDS.indexOf(plan as (typeof PLAN_IDS)[number]);

/**
 * `/{orgId}/subscription`: which plan one needs, the plans, the current status. Owners and admins subscribe
 * from a plan's card (Stripe Checkout); once the organization holds a subscription, a plan's card opens the
 * Stripe customer portal to change to it (one subscription per organization: a second checkout would bill
 * twice), and Manage billing changes the card or cancels.
 */
export default function SubscriptionPage() {
  const { orgId, user, role, document } = useOrganizationContext();
  const { data: plans, isLoading, isError } = usePlansQuery();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The plan whose card opened the portal: its button shows the wait.
  const [opening, setOpening] = useState<string | null>(null);
  const portal = useBillingPortal(orgId);
  const manage = role !== null && can(role, 'billing', 'update');
  const subscription = document?.subscription ?? null;
  const active = hasActiveSubscription(subscription);
  const live = holdsLiveSubscription(subscription);

  /** The card's button: Choose (checkout) without a live subscription; Upgrade or Switch (the portal) with one. */
  function actionOf(plan: PlanWithPrice): PlanAction {
    if (!manage) return null;
    if (!live)
      return { label: `Choose ${plan.name}`, busy: busy === plan.id, disabled: busy !== null, onClick: () => void choose(plan.id) };
    if (!document?.has_billing_account || subscription?.plan === plan.id) return null;
    const upgrade = rankOf(plan.id) > rankOf(subscription?.plan);
    return {
      label: `${upgrade ? 'Upgrade' : 'Switch'} to ${plan.name}`,
      busy: portal.busy && opening === plan.id,
      disabled: portal.busy,
      onClick: () => {
        setOpening(plan.id);
        void portal.open();
      },
    };
  }

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
              ? 'To change plan, use the plan’s button below: Stripe’s billing portal opens to confirm it. To update your card or cancel, open Manage billing.'
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
            <PlanCard key={plan.id} plan={plan} current={live && subscription?.plan === plan.id} action={actionOf(plan)} />
          ))}
        </ul>
      )}
      <PlanQuestions />
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
