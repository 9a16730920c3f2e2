import { rejectInvitationSchema } from '@/lib/shared/schemas/team';
import { forbidden } from '@/lib/server/errors';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { rejectInvitation } from '@/lib/server/repos/invitations';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: rejectInvitationSchema,
    async handle({ caller, body }) {
      if (!caller.email) throw forbidden();
      // Declining needs the same proof as accepting, or a stranger could turn the invitation down.
      await rejectInvitation(body.invitationId, {
        email: caller.email.toLowerCase(),
        emailVerified: caller.emailVerified,
        token: body.token,
      });
      return { success: true };
    },
  }),
});
