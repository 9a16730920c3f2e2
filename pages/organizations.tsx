import Head from 'next/head';
import OrganizationsPage from '@/components/organizations/OrganizationsPage';
import { layouts } from '@/layouts/index';

export default function Organizations() {
  return (
    <>
      <Head>
        <title>Organizations · SignalBridge</title>
      </Head>
      <OrganizationsPage />
    </>
  );
}

Organizations.getLayout = layouts.topNavbar;
