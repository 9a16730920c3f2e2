import Spinner from '@/components/ui/Spinner';
import { layouts } from '@/layouts/index';

/** `/payments` → the selected organization's payment accounts (RouteGuard decides). */
export default function PaymentsRedirect() {
  return <Spinner label="Loading" />;
}

PaymentsRedirect.getLayout = layouts.empty;
