import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { trackEvent } from '@/lib/server/analytics';
import { forbidden } from '@/lib/server/errors';
import {
  createOrganization,
  findAllOrganizationsPage,
  listOrganizationsOfUser,
  readAllOrganizationsPage,
} from '@/lib/server/repos/organizations';
import { getUserRecord, isSuperAdmin } from '@/lib/server/repos/users';

/** Creates an organization with the caller as its owner (named as their user record names them), and says so to analytics. */
export async function startOrganization(
  owner: { uid: string; email: string | undefined },
  organization: { name: string; logo: string | null; isDefault: boolean },
): Promise<string> {
  const record = await getUserRecord(owner.uid);
  const organizationId = await createOrganization({
    ...organization,
    owner: { uid: owner.uid, email: owner.email ?? record?.email ?? '', fullName: record?.fullName ?? '' },
  });
  await trackEvent(owner.uid, ANALYTICS_EVENTS.organizationCreated, { org_id: organizationId });
  return organizationId;
}

interface OrganizationListQuery {
  userId: string;
  superadmin: boolean;
  search?: string;
  cursor?: string;
}

/**
 * A user's organizations; another user's, or every organization a page at a time, only for a real super
 * admin. Asked for every organization, the page's place in the directory is read beside the super-admin
 * check (one round trip before the organizations are read, not two): a caller who is not one gets their
 * own list, and never sees that read nor its errors.
 */
export async function listOrganizations(callerUid: string, { userId, superadmin, search, cursor }: OrganizationListQuery) {
  const finding = superadmin ? findAllOrganizationsPage({ search, cursor }) : undefined;
  finding?.catch(() => {});
  const superAdmin = superadmin || userId !== callerUid ? await isSuperAdmin(callerUid) : false;
  if (userId !== callerUid && !superAdmin) throw forbidden();
  if (finding && superAdmin) return readAllOrganizationsPage(await finding);
  return { organizations: await listOrganizationsOfUser(userId), nextCursor: null };
}
