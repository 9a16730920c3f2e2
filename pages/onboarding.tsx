import Head from 'next/head';
import { useRouter } from 'next/router';
import CreateOrganizationForm from '@/components/organizations/CreateOrganizationForm';
import { layouts } from '@/layouts/index';

export default function OnboardingPage() {
  const router = useRouter();
  return (
    <section className="card stack" style={{ maxWidth: 520, margin: '0 auto' }}>
      <Head>
        <title>Create your organization · SignalBridge</title>
      </Head>
      <h1>Create your organization</h1>
      <p className="muted">Your organization holds your ad accounts, connections and teammates. You can add a logo later.</p>
      <CreateOrganizationForm onCreated={(orgId) => void router.replace(`/${encodeURIComponent(orgId)}/connection`)} />
    </section>
  );
}

OnboardingPage.getLayout = layouts.topNavbar;
