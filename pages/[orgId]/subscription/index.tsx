import SubscriptionPage from '@/components/billing/SubscriptionPage';
import { layouts } from '@/layouts/index';

export default function Subscription() {
  return <SubscriptionPage />;
}

Subscription.getLayout = layouts.topNavbar;
