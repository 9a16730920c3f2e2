import Link from 'next/link';
import { useBillingPortal } from '@/components/billing/useBillingPortal';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import { planNameOf } from '@/lib/shared/billing/entitlements';
import { holdsLiveSubscription } from '@/lib/shared/billing/gate';
import { can, type Role } from '@/lib/shared/permissions';
import type { OrganizationDocument } from '@/lib/shared/schemas/organization';

/** The plan, read-only for members; owners and admins change it (or card, or cancel) in the Stripe customer portal. */
export default function BillingSection({ orgId, role, document }: { orgId: string; role: Role; document: OrganizationDocument }) {
  const portal = useBillingPortal(orgId);
  const subscription = document.subscription;
  const manage = can(role, 'billing', 'update');

  return (
    <section className="section" aria-labelledby="billing-title">
      <h2 id="billing-title">Billing</h2>
      {portal.error && <Alert>{portal.error}</Alert>}
      <p className="muted" style={{ margin: 0 }}>
        {subscription
          ? `Plan: ${planNameOf(subscription.plan)} (${subscription.status})${
              subscription.current_period_end ? `, renews ${new Date(subscription.current_period_end).toLocaleDateString()}` : ''
            }`
          : 'No subscription.'}
      </p>
      {manage && (
        <div className="actions" style={{ justifyContent: 'flex-start' }}>
          {document.has_billing_account ? (
            <Button type="button" variant="secondary" busy={portal.busy} onClick={portal.open}>
              Manage billing
            </Button>
          ) : holdsLiveSubscription(subscription) ? null : (
            <Link className="button button--secondary" href={`/${encodeURIComponent(orgId)}/subscription`}>
              Choose a plan
            </Link>
          )}
        </div>
      )}
    </section>
  );
}
