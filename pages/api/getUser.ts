import { getUserSchema } from '@/lib/shared/schemas/user';
import { forbidden } from '@/lib/server/errors';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { getUserRecord, isSuperAdmin } from '@/lib/server/repos/users';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: getUserSchema,
    async handle({ caller, body }) {
      // Users read their own record; a super admin may read anyone's.
      if (body.userId !== caller.uid && !(await isSuperAdmin(caller.uid))) throw forbidden();
      const user = await getUserRecord(body.userId);
      if (!user) throw new ApiError(404, 'not_found', 'User not found');
      return { success: true, user, message: 'User found' };
    },
  }),
});
