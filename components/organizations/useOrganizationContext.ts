import { useRouter } from 'next/router';
import { subscribedPlan } from '@/lib/shared/billing/gate';
import { useAppSelector } from '@/store/hooks';
import { selectOrganization } from '@/store/organizationSlice';
import { selectUser } from '@/store/userSlice';

/** The organization of the current route, the signed-in user, their role in it and its plan (null until loaded, or without a subscription). */
export function useOrganizationContext() {
  const { query } = useRouter();
  const orgId = typeof query.orgId === 'string' ? query.orgId : null;
  const organization = useAppSelector(selectOrganization);
  const user = useAppSelector(selectUser);
  const loaded = organization.document?.organization_id === orgId ? organization : null;
  const document = loaded?.document ?? null;
  return { orgId, user, role: loaded?.role ?? null, document, plan: subscribedPlan(document), status: organization.status };
}
