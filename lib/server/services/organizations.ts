import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { trackEvent } from '@/lib/server/analytics';
import { createOrganization } from '@/lib/server/repos/organizations';
import { getUserRecord } from '@/lib/server/repos/users';

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
