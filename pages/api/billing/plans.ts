import { PLANS, type PlanWithPrice } from '@/lib/shared/billing/plans';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { priceIdOf, stripe } from '@/lib/server/vendors/stripe';

let cache: { at: number; plans: PlanWithPrice[] } | undefined;

/** GET /api/billing/plans: the plans with their monthly prices as Stripe has them (cached a minute). */
export default createHandler({
  GET: route({
    access: 'signedIn',
    async handle() {
      if (!cache || Date.now() - cache.at > 60_000) {
        const priced = await Promise.all(
          PLANS.map(async (plan): Promise<PlanWithPrice | null> => {
            const priceId = priceIdOf(plan.id);
            if (!priceId) return null;
            const price = await stripe().prices.retrieve(priceId);
            return { id: plan.id, name: plan.name, features: plan.features, amount: price.unit_amount ?? 0, currency: price.currency };
          }),
        );
        cache = { at: Date.now(), plans: priced.filter((plan): plan is PlanWithPrice => plan !== null) };
      }
      return { plans: cache.plans };
    },
  }),
});
