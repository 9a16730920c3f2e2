import { organizationNotFound } from '@/lib/server/http/errors';
import { forbidden } from '@/lib/server/errors';
import { getOrganizationWithMembership } from '@/lib/server/repos/organizations';

/** Checks that an id in the request is the caller's own: no one acts for someone else. */
export function assertSelf(callerUid: string, userId: string): void {
  if (callerUid !== userId) throw forbidden();
}

/** Checks that the caller belongs to an organization named in the body; 404 like any other non-member. */
export async function assertMember(orgId: string, uid: string): Promise<{ name: string }> {
  const { organization, role } = await getOrganizationWithMembership(orgId, uid);
  if (!organization || !role) throw organizationNotFound();
  return { name: organization.company_name ?? organization.name ?? '' };
}
