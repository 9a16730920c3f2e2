import { ANALYTICS_EVENTS } from '@/lib/analytics/events';
import { checkoutSchema } from '@/lib/schemas/billing';
import { trackEvent } from '@/lib/server/analytics';
import { appUrl } from '@/lib/server/appUrl';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { priceIdOf, stripe } from '@/lib/server/integrations/stripe';
import { getOrCreateCustomer } from '@/lib/server/repos/billing';

/** POST /api/billing/checkout: a Stripe Checkout session in subscription mode for the organization. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    body: checkoutSchema,
    orgId: ({ body }) => body.organizationId,
    permission: ['billing', 'update'],
    async handle({ caller, org, body }) {
      const price = priceIdOf(body.plan);
      if (!price) throw new ApiError(503, 'not_configured', 'This plan is not available right now.');
      const customer = await getOrCreateCustomer(org.id, org.data, { email: caller.email ?? '', userId: caller.uid });
      const base = `/${encodeURIComponent(org.id)}/subscription`;
      const session = await stripe().checkout.sessions.create({
        mode: 'subscription',
        customer,
        client_reference_id: org.id,
        line_items: [{ price, quantity: 1 }],
        metadata: { organization_id: org.id },
        subscription_data: { metadata: { organization_id: org.id } },
        success_url: appUrl(`${base}/success?session_id={CHECKOUT_SESSION_ID}`),
        cancel_url: appUrl(`${base}/failure`),
      });
      await trackEvent(caller.uid, ANALYTICS_EVENTS.planSelected, { org_id: org.id, plan: body.plan });
      return { url: session.url };
    },
  }),
});
