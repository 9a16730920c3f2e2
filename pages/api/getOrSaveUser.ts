import { getOrSaveUserSchema } from '@/lib/shared/schemas/user';
import { forbidden } from '@/lib/server/errors';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { getOrSaveUser } from '@/lib/server/services/users';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: getOrSaveUserSchema,
    async handle({ caller, body }) {
      // A user creates only their own record, with the email their token proves.
      if (body.uid !== caller.uid || body.email.toLowerCase() !== caller.email?.toLowerCase()) throw forbidden();
      const { user, created } = await getOrSaveUser({ email: body.email, fullName: body.fullName, uid: body.uid, photoURL: body.photoURL });
      return { success: true, user, message: created ? 'User created' : 'User found' };
    },
  }),
});
