import { useRouter } from 'next/router';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import { useAppQuery } from '@/store/integrationsApi';

/** Loads the app of the route for a page (its own file: pages that only read the app do not carry the app list and form). */
export function useRouteApp() {
  const { query } = useRouter();
  const { orgId, role } = useOrganizationContext();
  const id = typeof query.id === 'string' ? query.id : '';
  const result = useAppQuery({ orgId: orgId ?? '', id }, { skip: !orgId || !id });
  return { orgId, role, id, ...result };
}
