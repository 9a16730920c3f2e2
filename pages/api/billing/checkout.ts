import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { holdsLiveSubscription } from '@/lib/shared/billing/gate';
import { checkoutSchema } from '@/lib/shared/schemas/billing';
import { trackEvent } from '@/lib/server/analytics';
import { appUrl } from '@/lib/server/appUrl';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { priceIdOf, stripe } from '@/lib/server/vendors/stripe';
import { customerHasLiveSubscription, getOrCreateCustomer, replaceOpenCheckout } from '@/lib/server/repos/billing';

const alreadySubscribed = () =>
  new ApiError(409, 'subscription_exists', 'This organization already has a subscription. Change plans in billing settings.');

/**
 * POST /api/billing/checkout: a Stripe Checkout session in subscription mode for the organization. One
 * subscription per organization: while one is live, plans change in the customer portal, not here.
 */
export default createHandler({
  POST: route({
    access: 'orgMember',
    body: checkoutSchema,
    orgId: ({ body }) => body.organizationId,
    permission: ['billing', 'update'],
    async handle({ caller, org, body }) {
      const price = priceIdOf(body.plan);
      if (!price) throw new ApiError(503, 'not_configured', 'This plan is not available right now.');
      // A second checkout would bill the organization twice: refuse it while the document or Stripe shows one.
      if (holdsLiveSubscription(org.data.subscription)) throw alreadySubscribed();
      const customer = await getOrCreateCustomer(org.id, org.data, { email: caller.email ?? '', userId: caller.uid });
      if (await customerHasLiveSubscription(customer)) throw alreadySubscribed();
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
      await replaceOpenCheckout(org.id, session.id);
      await trackEvent(caller.uid, ANALYTICS_EVENTS.planSelected, { org_id: org.id, plan: body.plan });
      return { url: session.url };
    },
  }),
});
