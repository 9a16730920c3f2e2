import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { trackEvent } from '@/lib/server/analytics';
import { emailInvitation } from '@/lib/server/invitationEmail';
import { consumeRateLimits, invitationLimits } from '@/lib/server/limits/rateLimit';
import { acceptInvitation, createInvitation, getOrganizationInvitation, renewInvitation } from '@/lib/server/repos/invitations';
import { getUserRecord } from '@/lib/server/repos/users';

/** The team's use cases: an invitation made, sent again, accepted (each within its limits, its email and analytics sent). */

interface Inviter {
  uid: string;
  email: string;
}

/** Invites a person: within the inviter's and the organization's limits, one live invitation per email, the email sent. */
export async function inviteTeammate(
  org: { id: string; name: string },
  inviter: Inviter,
  invitee: { email: string; role: 'member' | 'admin' },
): Promise<{ invitationId: string; emailSent: boolean }> {
  await consumeRateLimits(invitationLimits(inviter.uid, org.id));
  const invitation = await createInvitation({
    orgId: org.id,
    organizationName: org.name,
    email: invitee.email,
    role: invitee.role,
    inviter,
  });
  return { invitationId: invitation.id, emailSent: await emailInvitation(invitation) };
}

/** Sends a pending invitation again, valid for another 7 days (the same limits as a new one). */
export async function resendInvitation(orgId: string, inviterUid: string, invitationId: string): Promise<{ emailSent: boolean }> {
  const invitation = await getOrganizationInvitation(orgId, invitationId);
  await consumeRateLimits(invitationLimits(inviterUid, orgId));
  return { emailSent: await emailInvitation(await renewInvitation(invitation)) };
}

/**
 * Joins the organization an invitation names: only one addressed to the email the caller proves (verified,
 * or the link's secret: the repository checks both).
 */
export async function joinOrganization(
  person: { uid: string; email: string; emailVerified: boolean },
  link: { invitationId: string; token?: string },
): Promise<string> {
  const record = await getUserRecord(person.uid);
  const { organizationId } = await acceptInvitation(link.invitationId, {
    ...person,
    email: person.email.toLowerCase(),
    token: link.token,
    fullName: record?.fullName ?? '',
  });
  await trackEvent(person.uid, ANALYTICS_EVENTS.organizationJoined, { org_id: organizationId });
  return organizationId;
}
