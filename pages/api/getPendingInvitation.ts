import { z } from 'zod';
import { documentIdSchema } from '@/lib/schemas/organization';
import { pendingInvitationQuerySchema } from '@/lib/schemas/team';
import { INVITATION_MESSAGES, INVITATION_TOKEN_PATTERN } from '@/lib/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { forbidden } from '@/lib/server/http/errors';
import { listPendingInvitations } from '@/lib/server/repos/invitations';

/** SPEC.md's email, plus optionally the invitation and secret of the emailed link the caller came through. */
const pendingLookupSchema = pendingInvitationQuerySchema.extend({
  invitationId: documentIdSchema.optional(),
  token: z.string().regex(INVITATION_TOKEN_PATTERN, 'Invalid invitation link').optional(),
});

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: pendingLookupSchema,
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
