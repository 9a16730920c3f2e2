import Head from 'next/head';
import Link from 'next/link';
import EmptyState from '@/components/ui/EmptyState';
import { layouts } from '@/layouts/index';
import { useAppSelector } from '@/store/hooks';
import { selectUser } from '@/store/userSlice';

export default function OrganizationsPage() {
  const user = useAppSelector(selectUser);
  return (
    <>
      <Head>
        <title>Organizations · SignalBridge</title>
      </Head>
      <EmptyState
        title="Organizations"
        description={
          user.isAuthenticated
            ? 'The organizations you belong to, and invitations waiting for you, will be listed here.'
            : 'Log in to see the organizations you belong to.'
        }
        action={
          !user.isAuthenticated && (
            <p>
              <Link href="/login">Log in</Link>
            </p>
          )
        }
      />
    </>
  );
}

OrganizationsPage.getLayout = layouts.topNavbar;
