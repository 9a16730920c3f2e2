import { testEventSchema } from '@/lib/shared/schemas/conversions';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { consumeRateLimits, TEST_EVENTS_PER_CONVERSION } from '@/lib/server/limits/rateLimit';
import { sendTestEvent } from '@/lib/server/services/conversions';

/** POST sends one test event through the conversion now and answers its outcome. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: testEventSchema,
    permission: ['conversion', 'update'],
    handle: async ({ org, query, body }) => {
      // Counted before the call: a burst of clicks (or scripts) cannot reach the platform more often than this.
      await consumeRateLimits([{ rule: TEST_EVENTS_PER_CONVERSION, key: `${org.id}/${query.id}` }]);
      return sendTestEvent(org.id, query.id, body.testEventCode);
    },
  }),
});
