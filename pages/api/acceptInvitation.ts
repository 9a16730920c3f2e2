import { acceptInvitationSchema } from '@/lib/shared/schemas/team';
import { forbidden } from '@/lib/server/errors';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { joinOrganization } from '@/lib/server/services/team';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: acceptInvitationSchema,
    async handle({ caller, body }) {
      // Only for oneself, and only an invitation addressed to the email the token proves.
      if (body.userId !== caller.uid || !caller.email) throw forbidden();
      const organizationId = await joinOrganization(
        { uid: caller.uid, email: caller.email, emailVerified: caller.emailVerified },
        { invitationId: body.invitationId, token: body.token },
      );
      return { success: true, organizationId };
    },
  }),
});
