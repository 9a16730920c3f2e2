import { featuresOf, PLAN_ENTITLEMENTS, PLAN_IDS, type PlanId } from '@/lib/shared/billing/entitlements';

export { PLAN_IDS, type PlanId };

/**
 * The plans on offer, their feature lines derived from the entitlements table (one source of truth).
 * Their monthly prices live in Stripe (price ids from configuration).
 */
export const PLANS: ReadonlyArray<{ id: PlanId; name: string; features: readonly string[] }> = PLAN_ENTITLEMENTS.map((plan) => ({
  id: plan.id,
  name: plan.name,
  features: featuresOf(plan),
}));

export interface PlanWithPrice {
  id: PlanId;
  name: string;
  features: readonly string[];
  /** Minor units (cents) per month. */
  amount: number;
  currency: string;
}
