import type { OrganizationDocument } from '@/lib/shared/schemas/organization';

/** How long a past-due subscription (a failed renewal payment) keeps the organization open. */
export const PAST_DUE_GRACE_DAYS = 7;

type Subscription = OrganizationDocument['subscription'];

/**
 * The plan an organization's subscription names, or null without one: what the entitlements table is
 * read with (the browser's organization document and the server's stored one alike).
 */
export const subscribedPlan = (organization: { subscription?: { plan?: string | null } | null } | null | undefined): string | null =>
  organization?.subscription?.plan ?? null;

/** Active or trialing opens the organization; past_due does for the grace period; anything else closes it. */
export function hasActiveSubscription(subscription: Subscription, now: Date = new Date()): boolean {
  if (!subscription) return false;
  if (subscription.status === 'active' || subscription.status === 'trialing') return true;
  if (subscription.status !== 'past_due') return false;
  const since = subscription.past_due_since ? Date.parse(subscription.past_due_since) : now.getTime();
  return now.getTime() - since < PAST_DUE_GRACE_DAYS * 24 * 60 * 60 * 1000;
}

/** Statuses of a subscription Stripe still bills (or will once the card is fixed): it must be the only one. */
const LIVE_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due', 'unpaid', 'paused']);

/**
 * Whether the organization holds a subscription Stripe still bills, even past its grace period: a new
 * checkout would then buy a second one, so plan changes go through the customer portal instead.
 */
export function holdsLiveSubscription(subscription: { status: string } | null | undefined): boolean {
  return Boolean(subscription && LIVE_STATUSES.has(subscription.status));
}

const OPEN_WITHOUT_SUBSCRIPTION = /^\/[^/]+\/(?:subscription|acceptInvitation)(?:\/|$)/;

/** Organization pages need a subscription, except the subscription pages (and invitation links). */
export const requiresSubscription = (path: string) => !OPEN_WITHOUT_SUBSCRIPTION.test(path);
