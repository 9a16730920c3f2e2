import type { ReactElement } from 'react';
import SubscriptionPage from '@/components/billing/SubscriptionPage';
import SubscriptionLayout from '@/layouts/SubscriptionLayout';

export default function Subscription() {
  return <SubscriptionPage />;
}

// Its own layout (the top navbar until subscribed, then the sidebar), imported here rather than by every page.
Subscription.getLayout = (page: ReactElement) => <SubscriptionLayout>{page}</SubscriptionLayout>;
