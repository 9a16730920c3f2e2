import { checkoutSchema } from '@/lib/shared/schemas/billing';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { isPlanOnSale, openCheckout } from '@/lib/server/services/billing';

/** POST /api/billing/checkout: a Stripe Checkout session for the organization (services/billing.ts). */
export default createHandler({
  POST: route({
    access: 'orgMember',
    body: checkoutSchema,
    orgId: ({ body }) => body.organizationId,
    permission: ['billing', 'update'],
    async handle({ caller, org, body }) {
      if (!isPlanOnSale(body.plan)) throw new ApiError(503, 'not_configured', 'This plan is not available right now.');
      return openCheckout(org, caller, body.plan);
    },
  }),
});
