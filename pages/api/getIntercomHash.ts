import { intercomHashSchema } from '@/lib/shared/schemas/analytics';
import { assertSelf } from '@/lib/server/access';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { intercomUserHash } from '@/lib/server/intercom';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: intercomHashSchema,
    handle({ caller, body }) {
      // Only one's own hash: with another's, anyone could open the chat as them.
      assertSelf(caller.uid, body.userId);
      const secret = process.env.INTERCOM_IDENTITY_SECRET;
      if (!secret) throw new ApiError(503, 'not_configured', 'Chat is not configured.');
      return { userHash: intercomUserHash(secret, caller.uid) };
    },
  }),
});
