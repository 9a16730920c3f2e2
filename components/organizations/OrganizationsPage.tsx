import dynamic from 'next/dynamic';
import { useRouter } from 'next/router';
import { useEffect, useRef, useState } from 'react';
import InvitationsForYou from '@/components/organizations/InvitationsForYou';
import AllDeadLetters from '@/components/support/AllDeadLetters';
import OrganizationCard from '@/components/organizations/OrganizationCard';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import TextField from '@/components/ui/TextField';
import { apiRequest } from '@/lib/client/apiClient';
import type { OrganizationListEntry } from '@/lib/shared/schemas/organization';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { fetchOrganizations, toOrganizationSummary } from '@/store/thunks';
import type { FetchStatus } from '@/store/types';
import { organizationSelected, selectUser, type OrganizationSummary } from '@/store/userSlice';

// The form (and its schema) loads when the dialog first opens, not with the list.
const CreateOrganizationForm = dynamic(() => import('@/components/organizations/CreateOrganizationForm'), {
  loading: () => <Spinner label="Loading" />,
});

interface Page {
  organizations: OrganizationSummary[];
  nextCursor: string | null;
}

/** Every organization, for a super admin: searched by name prefix on the server, a page at a time. */
function useAllOrganizations(enabled: boolean, search: string) {
  const [page, setPage] = useState<Page>({ organizations: [], nextCursor: null });
  const [status, setStatus] = useState<FetchStatus>('idle');
  const uid = useAppSelector(selectUser).uid;

  async function load(cursor: string | null) {
    setStatus('pending');
    try {
      const result = await apiRequest<{ organizations: OrganizationListEntry[]; nextCursor: string | null }>('/api/getOrganizationIds', {
        query: { userId: uid ?? '', superadmin: 'true', search, ...(cursor ? { cursor } : {}) },
      });
      const organizations = result.organizations.map(toOrganizationSummary);
      setPage((previous) => ({
        organizations: cursor ? [...previous.organizations, ...organizations] : organizations,
        nextCursor: result.nextCursor,
      }));
      setStatus('success');
    } catch {
      setStatus('error');
    }
  }

  useEffect(() => {
    if (!enabled) return;
    const timer = setTimeout(() => void load(null), 250);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reload when the search changes
  }, [enabled, search]);

  return { ...page, status, loadMore: () => void load(page.nextCursor) };
}

export default function OrganizationsPage() {
  const router = useRouter();
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectUser);
  const [search, setSearch] = useState('');
  const [refreshStatus, setRefreshStatus] = useState<FetchStatus>('idle');
  const dialog = useRef<HTMLDialogElement>(null);
  const [creating, setCreating] = useState(false);
  const all = useAllOrganizations(user.super_admin, search.trim());

  useEffect(() => {
    if (!user.isAuthenticated || user.super_admin || user.organizations === null) return;
    // The list may have changed since it was stored: refresh it quietly.
    dispatch(fetchOrganizations())
      .unwrap()
      .then(() => setRefreshStatus('success'))
      .catch(() => setRefreshStatus('error'));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per visit
  }, [user.isAuthenticated, user.super_admin]);

  function choose(organization: OrganizationSummary) {
    dispatch(
      organizationSelected({
        orgId: organization.organizationId,
        organization: { name: organization.companyName, logo: organization.logo },
      }),
    );
    void router.push(`/${encodeURIComponent(organization.organizationId)}/connection`);
  }

  const organizations = user.super_admin ? all.organizations : (user.organizations ?? []);
  const status: FetchStatus = user.super_admin ? all.status : user.organizations === null ? 'pending' : refreshStatus;

  return (
    <section className="stack">
      <div className="toolbar">
        <div>
          <h1>Organizations</h1>
          <p className="muted">
            {user.super_admin ? 'Every organization on SignalBridge (super admin).' : 'Choose an organization to work in.'}
          </p>
        </div>
        <Button
          type="button"
          variant="secondary"
          onClick={() => {
            setCreating(true);
            dialog.current?.showModal();
          }}
        >
          New organization
        </Button>
      </div>
      <InvitationsForYou />
      {user.super_admin && <AllDeadLetters />}
      {user.super_admin && <TextField label="Search by name" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />}
      {status === 'error' && <Alert>We could not load your organizations. Please reload the page.</Alert>}
      {status === 'pending' && organizations.length === 0 ? (
        <p className="muted">
          <Spinner label="Loading organizations" /> Loading organizations…
        </p>
      ) : organizations.length === 0 ? (
        <div className="empty-state">
          <p>{search ? `No organization starts with “${search}”.` : 'You do not belong to any organization yet.'}</p>
        </div>
      ) : (
        <ul className="org-list" aria-label="Organizations">
          {organizations.map((organization) => (
            <OrganizationCard key={organization.organizationId} organization={organization} onChoose={choose} />
          ))}
        </ul>
      )}
      {user.super_admin && all.nextCursor && (
        <Button type="button" variant="secondary" busy={all.status === 'pending'} onClick={all.loadMore}>
          Load more
        </Button>
      )}
      <dialog ref={dialog} aria-labelledby="new-org-title">
        <div className="stack">
          <h2 id="new-org-title">New organization</h2>
          {creating && <CreateOrganizationForm onCreated={(path) => router.push(path)} />}
          <Button type="button" variant="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </Button>
        </div>
      </dialog>
    </section>
  );
}
