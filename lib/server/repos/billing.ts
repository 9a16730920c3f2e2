import { FieldValue, type DocumentData } from 'firebase-admin/firestore';
import type Stripe from 'stripe';
import { PLAN_IDS, type PlanId } from '@/lib/billing/plans';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { priceIdOf, stripe } from '@/lib/server/integrations/stripe';
import { organizationsCollection } from '@/lib/server/repos/organizations';

const customersCollection = () => adminDb().collection('stripe_customers');
const eventsCollection = () => adminDb().collection('stripe_events');

/**
 * The organization's Stripe customer: created once (idempotently, even under concurrent calls), reused
 * after. `organization` is the document the handler already loaded, so no second read.
 */
export async function getOrCreateCustomer(
  orgId: string,
  organization: DocumentData,
  { email, userId }: { email: string; userId: string },
): Promise<string> {
  const existing = organization.stripe_customer_id;
  if (typeof existing === 'string' && existing) return existing;
  const customer = await stripe().customers.create(
    { email, metadata: { organization_id: orgId, created_by: userId } },
    { idempotencyKey: `customer-for-organization-${orgId}` },
  );
  const batch = adminDb().batch();
  batch.update(organizationsCollection().doc(orgId), { stripe_customer_id: customer.id });
  batch.set(customersCollection().doc(customer.id), { organization_id: orgId });
  await batch.commit();
  return customer.id;
}

export async function organizationOfCustomer(customerId: string): Promise<string | null> {
  const snap = await customersCollection().doc(customerId).get();
  return snap.exists ? (snap.get('organization_id') as string) : null;
}

function planOfPrice(priceId: string | undefined): PlanId | null {
  return PLAN_IDS.find((plan) => priceIdOf(plan) === priceId) ?? null;
}

interface SubscriptionChange {
  orgId: string;
  status: string;
  subscriptionId: string | null;
  customerId: string;
  plan?: PlanId | null;
  currentPeriodEnd?: number | null;
}

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : (value?.id ?? null));

function changeFromSubscription(orgId: string, subscription: Stripe.Subscription, status = subscription.status): SubscriptionChange {
  const item = subscription.items?.data?.[0];
  const periodEnd = (subscription as unknown as { current_period_end?: number }).current_period_end ?? item?.current_period_end;
  return {
    orgId,
    status,
    subscriptionId: subscription.id,
    customerId: idOf(subscription.customer)!,
    plan: planOfPrice(item?.price?.id),
    currentPeriodEnd: periodEnd ?? null,
  };
}

/** What an event means for an organization's subscription, or null when it is none of our business. */
async function changeFromEvent(event: Stripe.Event): Promise<SubscriptionChange | null> {
  const object = event.data.object as unknown as Record<string, unknown>;
  const customerId = idOf(object.customer as string | null);
  const orgFor = async (metadata: unknown) =>
    ((metadata as Record<string, string> | undefined)?.organization_id as string | undefined) ??
    (customerId ? await organizationOfCustomer(customerId) : null);

  switch (event.type) {
    case 'checkout.session.completed': {
      const session = object as unknown as Stripe.Checkout.Session;
      const orgId = session.client_reference_id ?? (await orgFor(session.metadata));
      const subscriptionId = idOf(session.subscription);
      if (!orgId || !subscriptionId) return null;
      return changeFromSubscription(orgId, await stripe().subscriptions.retrieve(subscriptionId));
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const subscription = object as unknown as Stripe.Subscription;
      const orgId = await orgFor(subscription.metadata);
      if (!orgId) return null;
      return changeFromSubscription(orgId, subscription, event.type === 'customer.subscription.deleted' ? 'canceled' : subscription.status);
    }
    case 'invoice.payment_failed': {
      const orgId = await orgFor(undefined);
      if (!orgId || !customerId) return null;
      const invoice = object as { subscription?: string | null; parent?: { subscription_details?: { subscription?: string } } };
      const subscriptionId = invoice.subscription ?? invoice.parent?.subscription_details?.subscription ?? null;
      return { orgId, status: 'past_due', subscriptionId, customerId };
    }
    default:
      return null;
  }
}

/**
 * Applies a verified Stripe event to the organization's subscription, at most once per event id,
 * and never lets an older event overwrite a newer one.
 */
export async function applyStripeEvent(event: Stripe.Event): Promise<'applied' | 'duplicate' | 'ignored'> {
  const change = await changeFromEvent(event);
  return adminDb().runTransaction(async (tx) => {
    const record = eventsCollection().doc(event.id);
    if ((await tx.get(record)).exists) return 'duplicate';
    const orgRef = change ? organizationsCollection().doc(change.orgId) : null;
    const org = orgRef ? await tx.get(orgRef) : null;
    tx.create(record, { type: event.type, created: event.created, received_at: FieldValue.serverTimestamp() });
    if (!change || !orgRef || !org?.exists) return 'ignored';
    const current = (org.get('subscription') ?? {}) as Record<string, unknown>;
    if (typeof current.event_created === 'number' && current.event_created > event.created) return 'ignored';
    const pastDueSince =
      change.status === 'past_due' ? (current.status === 'past_due' ? (current.past_due_since ?? null) : new Date(event.created * 1000).toISOString()) : null;
    tx.update(orgRef, {
      stripe_customer_id: change.customerId,
      subscription: {
        status: change.status,
        plan: change.plan === undefined ? (current.plan ?? null) : change.plan,
        customer_id: change.customerId,
        subscription_id: change.subscriptionId ?? current.subscription_id ?? null,
        current_period_end:
          change.currentPeriodEnd === undefined || change.currentPeriodEnd === null
            ? (current.current_period_end ?? null)
            : new Date(change.currentPeriodEnd * 1000).toISOString(),
        past_due_since: pastDueSince,
        event_created: event.created,
      },
    });
    return 'applied';
  });
}
