import { trackSchema } from '@/lib/shared/schemas/analytics';
import { assertMember, assertSelf } from '@/lib/server/access';
import { trackEvent } from '@/lib/server/analytics';
import { createHandler, route } from '@/lib/server/http/createHandler';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: trackSchema,
    async handle({ caller, body }) {
      assertSelf(caller.uid, body.userId);
      const orgId = body.properties.org_id;
      if (typeof orgId === 'string') await assertMember(orgId, caller.uid);
      await trackEvent(caller.uid, body.eventName, body.properties);
      return { success: true, message: 'Event tracked' };
    },
  }),
});
