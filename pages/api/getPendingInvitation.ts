import { pendingInvitationQuerySchema } from '@/lib/shared/schemas/team';
import { forbidden } from '@/lib/server/errors';
import { INVITATION_MESSAGES } from '@/lib/shared/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listPendingInvitations } from '@/lib/server/repos/invitations';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: pendingInvitationQuerySchema,
    async handle({ caller, body }) {
      // Only the caller's own email: invitations reveal who is being invited where.
      if (body.email !== caller.email?.toLowerCase()) throw forbidden();
      // An unverified email sees only the invitation whose link it holds (see listPendingInvitations).
      const invitations = await listPendingInvitations(
        { email: body.email, emailVerified: caller.emailVerified, token: body.token },
        body.invitationId,
      );
      return invitations.length
        ? { success: true, invitations }
        : { success: false, invitations, message: INVITATION_MESSAGES.noneForUser };
    },
  }),
});
