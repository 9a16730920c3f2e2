import type { ReactNode } from 'react';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import DefaultLayout from '@/layouts/DefaultLayout';
import TopNavbarLayout from '@/layouts/TopNavbarLayout';
import { hasActiveSubscription } from '@/lib/shared/billing/gate';

/**
 * `/{orgId}/subscription`: the top navbar while the organization has no subscription (every sidebar
 * link would lead back here); once subscribed, the organization's own layout with its sidebar, so a
 * plan change is not a detour out of the app.
 */
export default function SubscriptionLayout({ children }: { children: ReactNode }) {
  const { document } = useOrganizationContext();
  return hasActiveSubscription(document?.subscription ?? null) ? (
    <DefaultLayout>{children}</DefaultLayout>
  ) : (
    <TopNavbarLayout>{children}</TopNavbarLayout>
  );
}
