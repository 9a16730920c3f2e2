import Head from 'next/head';
import SlackSettings from '@/components/alerts/SlackSettings';
import BillingSection from '@/components/billing/BillingSection';
import InviteForm from '@/components/team/InviteForm';
import OrganizationProfileForm from '@/components/team/OrganizationProfileForm';
import SentInvitations from '@/components/team/SentInvitations';
import TeamMembers from '@/components/team/TeamMembers';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Spinner from '@/components/ui/Spinner';
import { can } from '@/lib/shared/permissions';

/** `/{orgId}/settings`: the organization, its team and its invitations. Controls follow the user's role. */
export default function SettingsPage() {
  const { orgId, user, role, document } = useOrganizationContext();
  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Head>
        <title>Settings · SignalBridge</title>
      </Head>
      <h1>Settings</h1>
      {!orgId || !role || !document || !user.uid ? (
        <Spinner label="Loading settings" />
      ) : (
        <>
          <OrganizationProfileForm key={document.organization_id} orgId={orgId} role={role} document={document} />
          <BillingSection orgId={orgId} role={role} document={document} />
          {can(role, 'organization', 'update') && <SlackSettings orgId={orgId} />}
          <TeamMembers orgId={orgId} role={role} uid={user.uid} />
          {can(role, 'invitation', 'read') && <SentInvitations orgId={orgId} role={role} />}
          {can(role, 'invitation', 'create') && (
            <InviteForm orgId={orgId} organizationName={document.name} role={role} inviter={{ uid: user.uid, email: user.email ?? '' }} />
          )}
        </>
      )}
    </div>
  );
}
