import type { DocumentData } from 'firebase-admin/firestore';
import type { OrganizationDocument } from '@/lib/shared/schemas/organization';

/** What a member may see of an organization: no Stripe ids, no internal fields. */
export function toOrganizationDocument(orgId: string, data: DocumentData): OrganizationDocument {
  const name = data.company_name ?? data.name ?? '';
  const logo = data.company_logo ?? data.logo ?? null;
  const subscription = data.subscription;
  return {
    organization_id: orgId,
    name,
    company_name: name,
    logo,
    company_logo: logo,
    subscription: subscription
      ? {
          status: subscription.status,
          plan: subscription.plan ?? null,
          current_period_end: subscription.current_period_end ?? null,
          past_due_since: subscription.past_due_since ?? null,
        }
      : null,
    // Older documents held the customer id itself; newer ones only say that there is one.
    has_billing_account: Boolean(data.has_billing_account ?? data.stripe_customer_id),
  };
}
