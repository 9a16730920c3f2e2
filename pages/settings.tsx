import Spinner from '@/components/ui/Spinner';
import { layouts } from '@/layouts/index';

/** `/settings` → the selected organization's settings (RouteGuard decides). */
export default function SettingsRedirect() {
  return <Spinner label="Loading" />;
}

SettingsRedirect.getLayout = layouts.empty;
