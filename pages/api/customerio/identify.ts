import { identifySchema } from '@/lib/shared/schemas/analytics';
import { forbidden } from '@/lib/server/errors';
import { assertMember, assertSelf } from '@/lib/server/access';
import { identifyUser } from '@/lib/server/analytics';
import { createHandler, route } from '@/lib/server/http/createHandler';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: identifySchema,
    async handle({ caller, body, res }) {
      // A caller identifies only themselves, with the email their token proves, in their own organization.
      assertSelf(caller.uid, body.userId);
      assertSelf(caller.uid, body.traits.user_id);
      if (body.traits.email !== caller.email?.toLowerCase()) throw forbidden();
      if (body.traits.org_id) await assertMember(body.traits.org_id, caller.uid);
      const ok = await identifyUser(caller.uid, body.traits);
      res
        .status(ok ? 200 : 502)
        .json(ok ? { success: true, message: 'User identified' } : { success: false, message: 'Could not reach Customer.io' });
    },
  }),
});
