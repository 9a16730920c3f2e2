import Link from 'next/link';
import { useRouter } from 'next/router';
import { IntegrationConfiguration } from '@/components/integrations/IntegrationConfigurationPage';
import { Title } from '@/components/integrations/shared';
import EmptyState from '@/components/ui/EmptyState';
import Spinner from '@/components/ui/Spinner';
import type { Role } from '@/lib/permissions';
import { selectOrganization } from '@/store/organizationSlice';
import { useAppSelector } from '@/store/hooks';
import { selectUser } from '@/store/userSlice';

/**
 * `/SourceSettings?kind=source|destination&id=…`: which ad accounts an authorized login covers, for
 * the selected organization (the same picker as the configuration pages).
 */
export default function SourceSettings() {
  const { query, isReady } = useRouter();
  const user = useAppSelector(selectUser);
  const organization = useAppSelector(selectOrganization);
  const id = typeof query.id === 'string' ? query.id : null;
  const kind = query.kind === 'destination' ? 'destination' : 'source';
  const role = (organization.document?.organization_id === user.orgId ? organization.role : null) as Role | null;
  if (!isReady) return <Spinner label="Loading" />;
  if (!id || !user.orgId) {
    return (
      <>
        <Title>Account settings</Title>
        <EmptyState
          title="Account settings"
          description="Open a source or destination to pick the ad accounts it covers."
          action={user.orgId ? <Link href={`/${encodeURIComponent(user.orgId)}/source`}>Go to your sources</Link> : null}
        />
      </>
    );
  }
  if (!role) return <Spinner label="Loading" />;
  return <IntegrationConfiguration orgId={user.orgId} role={role} kind={kind} id={id} />;
}
