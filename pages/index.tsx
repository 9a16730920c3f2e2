import Spinner from '@/components/ui/Spinner';
import { layouts } from '@/layouts/index';

/** `/` → the organizations when signed in, else the login page (RouteGuard and middleware decide). */
export default function Home() {
  return <Spinner label="Loading" />;
}

Home.getLayout = layouts.empty;
