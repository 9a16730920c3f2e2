import { useRouter } from 'next/router';
import { useAppSelector } from '@/store/hooks';
import { selectOrganization } from '@/store/organizationSlice';
import { selectUser } from '@/store/userSlice';

/** The organization of the current route, the signed-in user and their role in it. */
export function useOrganizationContext() {
  const { query } = useRouter();
  const orgId = typeof query.orgId === 'string' ? query.orgId : null;
  const organization = useAppSelector(selectOrganization);
  const user = useAppSelector(selectUser);
  const loaded = organization.document?.organization_id === orgId ? organization : null;
  return { orgId, user, role: loaded?.role ?? null, document: loaded?.document ?? null, status: organization.status };
}
