import { sessionValidityQuerySchema } from '@/lib/shared/schemas/billing';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { stripe } from '@/lib/server/vendors/stripe';
import { billingAccountOf } from '@/lib/server/repos/billing';

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
    async handle({ org, query }) {
      try {
        const [session, account] = await Promise.all([stripe().checkout.sessions.retrieve(query.b), billingAccountOf(org.id, org.data)]);
        const ours = session.client_reference_id === org.id && account.customerId !== null && session.customer === account.customerId;
        return { isValid: ours && session.status === 'complete' && session.payment_status === 'paid' };
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return { isValid: false };
        throw error;
      }
    },
  }),
});
