import { appUrl } from '@/lib/server/appUrl';
import { sendTransactionalEmail } from '@/lib/server/vendors/customerio';
import type { InvitationToSend } from '@/lib/server/repos/invitations';
import { INVITATION_TOKEN_PARAM } from '@/lib/shared/team';

/** The link of the email: the invitation's page, with the secret that proves the reader got the email. */
function acceptUrl(invitation: InvitationToSend): string {
  const path = `/${encodeURIComponent(invitation.orgId)}/acceptInvitation/${encodeURIComponent(invitation.id)}`;
  return appUrl(`${path}?${new URLSearchParams({ [INVITATION_TOKEN_PARAM]: invitation.token })}`);
}

/** Emails the invitation link `/{orgId}/acceptInvitation/{id}?token=…`; says whether the email went out. */
export async function emailInvitation(invitation: InvitationToSend): Promise<boolean> {
  return sendTransactionalEmail({
    to: invitation.email,
    messageId: process.env.CUSTOMERIO_INVITATION_MESSAGE_ID || 'invitation',
    data: {
      organization_name: invitation.organizationName,
      inviter_email: invitation.inviterEmail,
      role: invitation.role,
      accept_url: acceptUrl(invitation),
      expires_at: invitation.expiresAt.toDate().toISOString(),
    },
  });
}
