import Spinner from '@/components/ui/Spinner';

/** `/subscription/failure` → the selected organization's (RouteGuard decides). */
export default function GlobalSubscriptionFailure() {
  return <Spinner label="Loading" />;
}
