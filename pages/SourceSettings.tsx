import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect } from 'react';
import { IntegrationConfiguration } from '@/components/integrations/IntegrationConfigurationPage';
import { Title } from '@/components/integrations/shared';
import EmptyState from '@/components/ui/EmptyState';
import Spinner from '@/components/ui/Spinner';
import type { Role } from '@/lib/shared/permissions';
import { selectOrganization } from '@/store/organizationSlice';
import { useAppDispatch, useAppSelector, useRehydrated } from '@/store/hooks';
import { fetchOrganization } from '@/store/thunks';
import { selectUser } from '@/store/userSlice';

/**
 * `/SourceSettings?kind=source|destination&id=…`: which ad accounts an authorized login covers, for
 * the selected organization (the same picker as the configuration pages).
 */
export default function SourceSettings() {
  const { query, isReady } = useRouter();
  const rehydrated = useRehydrated();
  const user = useAppSelector(selectUser);
  const organization = useAppSelector(selectOrganization);
  const id = typeof query.id === 'string' ? query.id : null;
  const kind = query.kind === 'destination' ? 'destination' : 'source';
  const dispatch = useAppDispatch();
  const role = (organization.document?.organization_id === user.orgId ? organization.role : null) as Role | null;
  // A global route: the guard loads organizations only on their own paths, so this page loads the selected one.
  useEffect(() => {
    if (user.orgId && organization.status === 'idle') void dispatch(fetchOrganization(user.orgId));
  }, [user.orgId, organization.status, dispatch]);
  // The server renders before the query and the stored user are known: so does the first browser render.
  if (!rehydrated || !isReady) return <Spinner label="Loading" />;
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
  if (organization.status === 'error')
    return <EmptyState title="Account settings" description="Your organization could not be loaded. Reload the page to try again." />;
  if (!role) return <Spinner label="Loading" />;
  return <IntegrationConfiguration orgId={user.orgId} role={role} kind={kind} id={id} />;
}
