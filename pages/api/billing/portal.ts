import { portalSchema } from '@/lib/shared/schemas/billing';
import { appUrl } from '@/lib/server/appUrl';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { stripe } from '@/lib/server/vendors/stripe';
import { billingAccountOf } from '@/lib/server/repos/billing';

/** POST /api/billing/portal: the Stripe customer portal (change plan, card, cancel). Owners and admins. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    body: portalSchema,
    orgId: ({ body }) => body.organizationId,
    permission: ['billing', 'update'],
    async handle({ org }) {
      const customer = (await billingAccountOf(org.id, org.data)).customerId;
      if (!customer) throw new ApiError(409, 'no_billing_account', 'This organization has no billing account yet.');
      const session = await stripe().billingPortal.sessions.create({
        customer,
        return_url: appUrl(`/${encodeURIComponent(org.id)}/subscription`),
      });
      return { url: session.url };
    },
  }),
});
