import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { acceptInvitationSchema } from '@/lib/shared/schemas/team';
import { trackEvent } from '@/lib/server/analytics';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { forbidden } from '@/lib/server/http/errors';
import { acceptInvitation } from '@/lib/server/repos/invitations';
import { getUserRecord } from '@/lib/server/repos/users';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: acceptInvitationSchema,
    async handle({ caller, body }) {
      // Only for oneself, and only an invitation addressed to the email the token proves.
      if (body.userId !== caller.uid || !caller.email) throw forbidden();
      const record = await getUserRecord(caller.uid);
      // The repository also asks for proof that the email is the caller's: verified, or the link's secret.
      const { organizationId } = await acceptInvitation(body.invitationId, {
        uid: caller.uid,
        email: caller.email.toLowerCase(),
        emailVerified: caller.emailVerified,
        token: body.token,
        fullName: record?.fullName ?? '',
      });
      await trackEvent(caller.uid, ANALYTICS_EVENTS.organizationJoined, { org_id: organizationId });
      return { success: true, organizationId };
    },
  }),
});
