import { z } from 'zod';
import { rejectInvitationSchema } from '@/lib/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { forbidden } from '@/lib/server/http/errors';
import { rejectInvitation } from '@/lib/server/repos/invitations';
import { INVITATION_TOKEN_PATTERN } from '@/lib/team';

/** SPEC.md's invitationId, plus the optional secret of the emailed link. */
const rejectWithLinkSchema = rejectInvitationSchema.extend({
  token: z.string().regex(INVITATION_TOKEN_PATTERN, 'Invalid invitation link').optional(),
});

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: rejectWithLinkSchema,
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
