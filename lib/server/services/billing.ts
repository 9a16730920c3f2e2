import type Stripe from 'stripe';
import { textOrNull } from '@/lib/shared/text';
import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { holdsLiveSubscription } from '@/lib/shared/billing/gate';
import { PLAN_IDS, PLANS, type PlanId, type PlanWithPrice } from '@/lib/shared/billing/plans';
import { isStripeId } from '@/lib/shared/schemas/billing';
import { trackEvent } from '@/lib/server/analytics';
import { appUrl } from '@/lib/server/appUrl';
import { DomainError } from '@/lib/server/errors';
import { priceIdOf, stripe } from '@/lib/server/vendors/stripe';
import {
  applySubscriptionChange,
  billingAccountOf,
  bindCustomer,
  organizationOfCustomer,
  swapOpenCheckout,
  type EventReferences,
  type SubscriptionChange,
} from '@/lib/server/repos/billing';
import { labels, log } from '@/lib/server/log';

/**
 * Billing's use cases between Stripe and the organization's billing records (repos/billing.ts): the customer
 * created once, one open checkout, Stripe's own word on a live subscription, and webhook events applied.
 */

/**
 * The organization's Stripe customer: created once (idempotently, even under concurrent calls), reused
 * after. Creating it binds the customer to the organization, the only binding webhook events are applied by.
 */
export async function getOrCreateCustomer(
  orgId: string,
  organization: Parameters<typeof billingAccountOf>[1],
  { email, userId }: { email: string; userId: string },
): Promise<string> {
  const existing = (await billingAccountOf(orgId, organization)).customerId;
  if (existing) return existing;
  const customer = await stripe().customers.create(
    { email, metadata: { organization_id: orgId, created_by: userId } },
    { idempotencyKey: `customer-for-organization-${orgId}` },
  );
  await bindCustomer(orgId, customer.id);
  return customer.id;
}

/** Stripe's own answer, true even before a webhook has landed: does the customer hold a subscription it bills? */
export async function customerHasLiveSubscription(customerId: string): Promise<boolean> {
  const subscriptions = await stripe().subscriptions.list({ customer: customerId, status: 'all', limit: 100 });
  return subscriptions.data.some((subscription) => holdsLiveSubscription(subscription));
}

const stripeStatusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/**
 * Makes the checkout just opened the organization's only open one: the one it replaces is expired, so two
 * tabs (or two admins) cannot each pay for a subscription.
 */
export async function replaceOpenCheckout(orgId: string, sessionId: string): Promise<void> {
  const previous = await swapOpenCheckout(orgId, sessionId);
  if (!previous || previous === sessionId) return;
  try {
    await stripe().checkout.sessions.expire(previous);
  } catch (error) {
    // A session already completed or expired cannot be expired: nothing is left open.
    if (stripeStatusOf(error) !== 400 && stripeStatusOf(error) !== 404) throw error;
  }
}

function planOfPrice(priceId: string | undefined): PlanId | null {
  return PLAN_IDS.find((plan) => priceIdOf(plan) === priceId) ?? null;
}

const idOf = (value: unknown) => (typeof value === 'string' ? value : textOrNull((value as { id?: unknown } | null | undefined)?.id));

const REPLACING = new Set(['checkout.session.completed', 'customer.subscription.created']);
const UPDATING = new Set(['customer.subscription.updated', 'customer.subscription.deleted', 'invoice.payment_failed']);

function subscriptionIdOfInvoice(invoice: Record<string, unknown>): unknown {
  const parent = invoice.parent as { subscription_details?: { subscription?: unknown } } | undefined;
  return idOf(invoice.subscription) ?? parent?.subscription_details?.subscription;
}

/** The ids an event names, or why it is none of our business (unknown type, malformed or missing ids). */
function referencesOf(event: Stripe.Event): EventReferences | string {
  if (!REPLACING.has(event.type) && !UPDATING.has(event.type)) return 'not a billing event';
  if (!isStripeId(event.id, 'evt') || typeof event.created !== 'number') return 'malformed event';
  const object = (event.data?.object ?? {}) as unknown as Record<string, unknown>;
  if (event.type === 'checkout.session.completed' && object.mode !== undefined && object.mode !== 'subscription')
    return 'not a subscription checkout';
  const customerId = idOf(object.customer);
  const subscriptionId =
    event.type === 'checkout.session.completed'
      ? idOf(object.subscription)
      : event.type === 'invoice.payment_failed'
        ? subscriptionIdOfInvoice(object)
        : idOf(object.id);
  if (!isStripeId(customerId, 'cus') || !isStripeId(subscriptionId, 'sub')) return 'malformed or missing customer or subscription id';
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  return {
    customerId,
    subscriptionId,
    claimedOrgId: object.client_reference_id ?? metadata.organization_id,
    replaces: REPLACING.has(event.type),
  };
}

function changeFromSubscription(subscription: Stripe.Subscription, status: string = subscription.status): SubscriptionChange {
  const item = subscription.items?.data?.[0];
  const periodEnd = (subscription as unknown as { current_period_end?: number }).current_period_end ?? item?.current_period_end;
  return { status, plan: planOfPrice(item?.price?.id), currentPeriodEnd: periodEnd ?? null };
}

/** The change an event brings; a completed checkout's subscription is fetched from Stripe (null: not ours). */
async function changeOf(event: Stripe.Event, references: EventReferences): Promise<SubscriptionChange | null> {
  const object = event.data.object as unknown as Stripe.Subscription;
  switch (event.type) {
    case 'checkout.session.completed': {
      let subscription: Stripe.Subscription;
      try {
        subscription = await stripe().subscriptions.retrieve(references.subscriptionId);
      } catch (error) {
        if (stripeStatusOf(error) === 404) return null;
        throw error;
      }
      return idOf(subscription.customer) === references.customerId ? changeFromSubscription(subscription) : null;
    }
    case 'invoice.payment_failed':
      return { status: 'past_due' };
    case 'customer.subscription.deleted':
      return changeFromSubscription(object, 'canceled');
    default:
      return changeFromSubscription(object);
  }
}

function ignored(event: Stripe.Event, reason: string, detail: Record<string, unknown> = {}): 'ignored' {
  log.info(
    { component: 'billing', stripeEvent: event.id, type: event.type, reason, ...detail },
    'Stripe webhook event acknowledged and ignored',
  );
  return 'ignored';
}

/** Safe to log: a claimed organization id is whatever the event carried. */
const shown = (value: unknown) => JSON.stringify(value ?? null).slice(0, 140);

/**
 * Applies a verified Stripe event to the organization its customer is bound to, only for the subscription
 * that organization holds (a new subscription or completed checkout may replace it), at most once per event
 * id, never older over newer. Events about anything else are acknowledged and ignored.
 */
export async function applyStripeEvent(
  event: Stripe.Event,
  options: { afterChange?: (orgId: string) => Promise<unknown> } = {},
): Promise<'applied' | 'duplicate' | 'ignored'> {
  const references = referencesOf(event);
  if (typeof references === 'string') return references === 'not a billing event' ? 'ignored' : ignored(event, references);
  const orgId = await organizationOfCustomer(references.customerId);
  // The binding decides, never the event's metadata: a customer belongs to the organization that created it.
  if (!orgId)
    return ignored(event, 'customer not created by this app', { customer: references.customerId, claimed: shown(references.claimedOrgId) });
  if (references.claimedOrgId !== undefined && references.claimedOrgId !== null && references.claimedOrgId !== orgId) {
    log.warn(
      {
        component: 'billing',
        ...labels({ org: orgId }),
        stripeEvent: event.id,
        customer: references.customerId,
        claimed: shown(references.claimedOrgId),
      },
      'Stripe webhook event names another organization than its customer’s; the customer’s applies',
    );
  }
  const change = await changeOf(event, references);
  if (!change) return ignored(event, 'checkout subscription not found for its customer', { subscription: references.subscriptionId });
  const applied = await applySubscriptionChange(event, orgId, references, change);
  const outcome =
    applied === 'applied' || applied === 'duplicate'
      ? applied
      : ignored(event, applied, { organization: orgId, subscription: references.subscriptionId });
  // A duplicate too: Stripe retries an event whose follow-up failed, and the follow-up is idempotent.
  if (outcome !== 'ignored') await options.afterChange?.(orgId);
  return outcome;
}

const alreadySubscribed = () =>
  new DomainError('conflict', 'This organization already has a subscription. Change plans in billing settings.', {
    reason: 'subscription_exists',
  });

/** Whether a plan can be bought now (its Stripe price is configured). */
export const isPlanOnSale = (plan: PlanId) => Boolean(priceIdOf(plan));

/**
 * A Stripe Checkout session in subscription mode for the organization. One subscription per organization:
 * while one is live (on the document or in Stripe), plans change in the customer portal, not here.
 */
export async function openCheckout(
  org: { id: string; data: Parameters<typeof billingAccountOf>[1] },
  caller: { uid: string; email: string | null | undefined },
  plan: PlanId,
): Promise<{ url: string | null }> {
  const price = priceIdOf(plan)!;
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
  await trackEvent(caller.uid, ANALYTICS_EVENTS.planSelected, { org_id: org.id, plan });
  return { url: session.url };
}

/** The Stripe customer portal (change plan, card, cancel); a conflict while the organization has no billing account. */
export async function openPortal(org: { id: string; data: Parameters<typeof billingAccountOf>[1] }): Promise<{ url: string }> {
  const customer = (await billingAccountOf(org.id, org.data)).customerId;
  if (!customer) throw new DomainError('conflict', 'This organization has no billing account yet.', { reason: 'no_billing_account' });
  const session = await stripe().billingPortal.sessions.create({
    customer,
    return_url: appUrl(`/${encodeURIComponent(org.id)}/subscription`),
  });
  return { url: session.url };
}

let pricedCache: { at: number; plans: PlanWithPrice[] } | undefined;

/** The plans on sale with their monthly prices as Stripe has them (read once a minute). */
export async function pricedPlans(): Promise<PlanWithPrice[]> {
  if (!pricedCache || Date.now() - pricedCache.at > 60_000) {
    const priced = await Promise.all(
      PLANS.map(async (plan): Promise<PlanWithPrice | null> => {
        const priceId = priceIdOf(plan.id);
        if (!priceId) return null;
        const price = await stripe().prices.retrieve(priceId);
        return { id: plan.id, name: plan.name, features: plan.features, amount: price.unit_amount ?? 0, currency: price.currency };
      }),
    );
    pricedCache = { at: Date.now(), plans: priced.filter((plan): plan is PlanWithPrice => plan !== null) };
  }
  return pricedCache.plans;
}

/** Whether a Checkout Session is this organization's (its reference and its bound customer) and paid; an unknown one is not. */
export async function isPaidCheckoutOf(
  org: { id: string; data: Parameters<typeof billingAccountOf>[1] },
  sessionId: string,
): Promise<boolean> {
  try {
    const [session, account] = await Promise.all([stripe().checkout.sessions.retrieve(sessionId), billingAccountOf(org.id, org.data)]);
    const ours = session.client_reference_id === org.id && account.customerId !== null && session.customer === account.customerId;
    return ours && session.status === 'complete' && session.payment_status === 'paid';
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

/** A webhook event whose signature over these exact bytes Stripe made with our secret, within 5 minutes; else null. */
export function verifiedStripeEvent(body: Buffer, signature: unknown): Stripe.Event | null {
  const secret = process.env.STRIPE_WEBHOOK_SECRET;
  if (!secret || typeof signature !== 'string') return null;
  try {
    return stripe().webhooks.constructEvent(body, signature, secret);
  } catch {
    return null;
  }
}
