import Head from 'next/head';
import { useRouter } from 'next/router';
import CreateOrganizationForm from '@/components/organizations/CreateOrganizationForm';
import InvitationsForYou from '@/components/organizations/InvitationsForYou';
import { layouts } from '@/layouts/index';

/** The first organization: create one, or join a team that invited you (their invitations are listed first). */
export default function OnboardingPage() {
  const router = useRouter();
  return (
    <div className="stack" style={{ maxWidth: 520, margin: '0 auto' }}>
      <Head>
        <title>Create your organization · SignalBridge</title>
      </Head>
      <InvitationsForYou />
      <section className="card stack">
        <h1>Create your organization</h1>
        <p className="muted">Your organization holds your ad accounts, connections and teammates. You can add a logo later.</p>
        <CreateOrganizationForm onCreated={(path) => router.replace(path)} />
      </section>
    </div>
  );
}

OnboardingPage.getLayout = layouts.topNavbar;
