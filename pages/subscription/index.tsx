import Spinner from '@/components/ui/Spinner';
import { layouts } from '@/layouts/index';

/** `/subscription` → the selected organization's (RouteGuard decides). */
export default function GlobalSubscription() {
  return <Spinner label="Loading" />;
}

GlobalSubscription.getLayout = layouts.topNavbar;
