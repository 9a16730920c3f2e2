import Link from 'next/link';
import { useState } from 'react';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import { openBillingPortal } from '@/lib/billing/client';
import { can, type Role } from '@/lib/permissions';
import type { OrganizationDocument } from '@/lib/schemas/organization';

/** The plan, read-only for members; owners and admins open the Stripe customer portal. */
export default function BillingSection({ orgId, role, document }: { orgId: string; role: Role; document: OrganizationDocument }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const subscription = document.subscription;
  const manage = can(role, 'billing', 'update');

  async function portal() {
    setBusy(true);
    try {
      await openBillingPortal(orgId);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'An unexpected error occurred');
      setBusy(false);
    }
  }

  return (
    <section className="section" aria-labelledby="billing-title">
      <h2 id="billing-title">Billing</h2>
      {error && <Alert>{error}</Alert>}
      <p className="muted" style={{ margin: 0 }}>
        {subscription
          ? `Plan: ${subscription.plan ?? '—'} (${subscription.status})${
              subscription.current_period_end ? `, renews ${new Date(subscription.current_period_end).toLocaleDateString()}` : ''
            }`
          : 'No subscription.'}
      </p>
      {manage && (
        <div className="actions" style={{ justifyContent: 'flex-start' }}>
          {document.has_billing_account ? (
            <Button type="button" variant="secondary" busy={busy} onClick={portal}>
              Manage billing
            </Button>
          ) : (
            <Link className="button button--secondary" href={`/${encodeURIComponent(orgId)}/subscription`}>
              Choose a plan
            </Link>
          )}
        </div>
      )}
    </section>
  );
}
