import { sessionValidityQuerySchema } from '@/lib/shared/schemas/billing';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { isPaidCheckoutOf } from '@/lib/server/services/billing';

/**
 * GET {billing api}/billing/session-validity/{a}/{b}: a is the organization id, b the Checkout
 * Session id. Valid only when that session belongs to that organization and is paid.
 */
export default createHandler({
  GET: route({
    access: 'orgMember',
    query: sessionValidityQuerySchema,
    orgId: ({ query }) => query.a,
    permission: ['billing', 'read'],
    handle: async ({ org, query }) => ({ isValid: await isPaidCheckoutOf(org, query.b) }),
  }),
});
