import { rejectInvitationSchema } from '@/lib/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { forbidden } from '@/lib/server/http/errors';
import { rejectInvitation } from '@/lib/server/repos/invitations';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: rejectInvitationSchema,
    async handle({ caller, body }) {
      if (!caller.email) throw forbidden();
      await rejectInvitation(body.invitationId, caller.email.toLowerCase());
      return { success: true };
    },
  }),
});
