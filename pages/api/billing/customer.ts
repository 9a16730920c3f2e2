import { billingCustomerSchema } from '@/lib/shared/schemas/billing';
import { forbidden } from '@/lib/server/errors';
import { assertSelf } from '@/lib/server/access';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { getOrCreateCustomer } from '@/lib/server/services/billing';

/** POST {billing api}/billing/customer: the organization's Stripe customer, created once. Owners and admins. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    body: billingCustomerSchema,
    orgId: ({ body }) => body.organizationId,
    permission: ['billing', 'update'],
    async handle({ caller, org, body }) {
      assertSelf(caller.uid, body.userId);
      if (body.email !== caller.email?.toLowerCase()) throw forbidden();
      return { customerId: await getOrCreateCustomer(org.id, org.data, { email: body.email, userId: caller.uid }) };
    },
  }),
});
