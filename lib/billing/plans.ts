/** The plans on offer. Their monthly prices live in Stripe (price ids from configuration). */
export const PLANS = [
  { id: 'starter', name: 'Starter', features: ['2 ad accounts', 'Daily sync', 'Email support'] },
  { id: 'growth', name: 'Growth', features: ['10 ad accounts', 'Hourly sync', 'Conversions API uploads', 'Chat support'] },
  { id: 'scale', name: 'Scale', features: ['Unlimited ad accounts', '15-minute sync', 'Historical backfills', 'Priority support'] },
] as const;

export type PlanId = (typeof PLANS)[number]['id'];
export const PLAN_IDS = PLANS.map((plan) => plan.id) as [PlanId, ...PlanId[]];

export interface PlanWithPrice {
  id: PlanId;
  name: string;
  features: readonly string[];
  /** Minor units (cents) per month. */
  amount: number;
  currency: string;
}
