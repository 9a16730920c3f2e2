import type { DocumentSnapshot } from 'firebase-admin/firestore';
import { appUrl } from '@/lib/server/appUrl';
import { sendTransactionalEmail } from '@/lib/server/integrations/customerio';

/** Emails the invitation link `/{orgId}/acceptInvitation/{id}`; says whether the email went out. */
export async function emailInvitation(invitation: DocumentSnapshot): Promise<boolean> {
  const orgId: string = invitation.get('organization_id');
  return sendTransactionalEmail({
    to: invitation.get('email'),
    messageId: process.env.CUSTOMERIO_INVITATION_MESSAGE_ID || 'invitation',
    data: {
      organization_name: invitation.get('organization'),
      inviter_email: invitation.get('inviter_email'),
      role: invitation.get('role'),
      accept_url: appUrl(`/${encodeURIComponent(orgId)}/acceptInvitation/${encodeURIComponent(invitation.id)}`),
      expires_at: invitation.get('expires_at').toDate().toISOString(),
    },
  });
}
