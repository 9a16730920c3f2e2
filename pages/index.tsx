import { useRouter } from 'next/router';
import { useEffect } from 'react';
import Spinner from '@/components/ui/Spinner';
import { layouts } from '@/layouts/index';
import { useAppSelector, useRehydrated } from '@/store/hooks';
import { selectIsAuthenticated } from '@/store/userSlice';

/** `/` → the organizations when signed in, else the login page. */
export default function Home() {
  const router = useRouter();
  const rehydrated = useRehydrated();
  const isAuthenticated = useAppSelector(selectIsAuthenticated);

  useEffect(() => {
    if (rehydrated) void router.replace(isAuthenticated ? '/organizations' : '/login');
  }, [rehydrated, isAuthenticated, router]);

  return <Spinner label="Loading" />;
}

Home.getLayout = layouts.empty;
