import { appUrl } from '@/lib/server/appUrl';
import { sendTransactionalEmail } from '@/lib/server/integrations/customerio';
import type { InvitationToSend } from '@/lib/server/repos/invitations';

/** Emails the invitation link `/{orgId}/acceptInvitation/{id}`; says whether the email went out. */
export async function emailInvitation(invitation: InvitationToSend): Promise<boolean> {
  return sendTransactionalEmail({
    to: invitation.email,
    messageId: process.env.CUSTOMERIO_INVITATION_MESSAGE_ID || 'invitation',
    data: {
      organization_name: invitation.organizationName,
      inviter_email: invitation.inviterEmail,
      role: invitation.role,
      accept_url: appUrl(`/${encodeURIComponent(invitation.orgId)}/acceptInvitation/${encodeURIComponent(invitation.id)}`),
      expires_at: invitation.expiresAt.toDate().toISOString(),
    },
  });
}
