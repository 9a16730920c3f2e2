import Spinner from '@/components/ui/Spinner';

/** `/subscription/success` → the selected organization's (RouteGuard decides). */
export default function GlobalSubscriptionSuccess() {
  return <Spinner label="Loading" />;
}
