import { createHandler, route } from '@/lib/server/http/createHandler';
import { pricedPlans } from '@/lib/server/services/billing';

/** GET /api/billing/plans: the plans with their monthly prices as Stripe has them (cached a minute). */
export default createHandler({
  GET: route({ access: 'signedIn', handle: async () => ({ plans: await pricedPlans() }) }),
});
