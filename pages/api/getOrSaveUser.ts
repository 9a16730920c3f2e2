import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { getOrSaveUserSchema } from '@/lib/shared/schemas/user';
import { identifyUser, trackEvent } from '@/lib/server/analytics';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { forbidden } from '@/lib/server/http/errors';
import { getOrCreateUserRecord } from '@/lib/server/repos/users';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: getOrSaveUserSchema,
    async handle({ caller, body }) {
      // A user creates only their own record, with the email their token proves.
      if (body.uid !== caller.uid || body.email.toLowerCase() !== caller.email?.toLowerCase()) throw forbidden();
      const { user, created } = await getOrCreateUserRecord({
        email: body.email,
        fullName: body.fullName,
        uid: body.uid,
        photoURL: body.photoURL,
      });
      if (created) {
        await identifyUser(user.uid, { user_id: user.uid, email: user.email, name: user.fullName });
        await trackEvent(user.uid, ANALYTICS_EVENTS.accountCreated, { email: user.email });
      }
      return { success: true, user, message: created ? 'User created' : 'User found' };
    },
  }),
});
