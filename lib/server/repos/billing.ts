import { FieldValue, type DocumentData } from 'firebase-admin/firestore';
import type Stripe from 'stripe';
import { holdsLiveSubscription } from '@/lib/shared/billing/gate';
import { PLAN_IDS, type PlanId } from '@/lib/shared/billing/plans';
import { isStripeId } from '@/lib/shared/schemas/billing';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { priceIdOf, stripe } from '@/lib/server/vendors/stripe';
import { organizationsCollection } from '@/lib/server/repos/organizations';
import { labels, log } from '@/lib/server/log';

// Customer → organization, written only when our server creates the customer: the webhook trusts nothing else.
const customersCollection = () => adminDb().collection('stripe_customers');
const eventsCollection = () => adminDb().collection('stripe_events');
// The organization's Stripe ids live here, where firestore.rules let no browser read (members read the organization).
const billingDocument = (orgId: string) => organizationsCollection().doc(orgId).collection('private').doc('billing');

/** The organization's Stripe ids, server only. */
export interface BillingAccount {
  customerId: string | null;
  /** The one subscription the organization holds: events about any other are ignored. */
  subscriptionId: string | null;
  /** The checkout session opened last, still open perhaps: a newer one expires it. */
  checkoutSessionId: string | null;
  /** When the last applied event was created (seconds): an older one never overwrites it. */
  eventCreated: number | null;
}

const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
const number = (value: unknown) => (typeof value === 'number' ? value : null);

/** Reads the server-only document; organizations written before it existed kept the ids on themselves. */
function accountFrom(billing: DocumentData | undefined, organization: DocumentData | undefined): BillingAccount {
  const legacy = (organization?.subscription ?? {}) as Record<string, unknown>;
  return {
    customerId: text(billing?.customer_id) ?? text(organization?.stripe_customer_id) ?? text(legacy.customer_id),
    subscriptionId: text(billing?.subscription_id) ?? text(legacy.subscription_id),
    checkoutSessionId: text(billing?.checkout_session_id),
    eventCreated: number(billing?.event_created) ?? number(legacy.event_created),
  };
}

/** The organization's Stripe ids; `organization` is the document the handler already loaded. */
export async function billingAccountOf(orgId: string, organization: DocumentData): Promise<BillingAccount> {
  return accountFrom((await billingDocument(orgId).get()).data(), organization);
}

/**
 * The organization's Stripe customer: created once (idempotently, even under concurrent calls), reused
 * after. Creating it binds the customer to the organization, the only binding webhook events are applied by.
 */
export async function getOrCreateCustomer(
  orgId: string,
  organization: DocumentData,
  { email, userId }: { email: string; userId: string },
): Promise<string> {
  const existing = (await billingAccountOf(orgId, organization)).customerId;
  if (existing) return existing;
  const customer = await stripe().customers.create(
    { email, metadata: { organization_id: orgId, created_by: userId } },
    { idempotencyKey: `customer-for-organization-${orgId}` },
  );
  const batch = adminDb().batch();
  batch.set(billingDocument(orgId), { customer_id: customer.id }, { merge: true });
  batch.set(customersCollection().doc(customer.id), { organization_id: orgId });
  batch.update(organizationsCollection().doc(orgId), { has_billing_account: true });
  await batch.commit();
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
  const ref = billingDocument(orgId);
  const previous = await adminDb().runTransaction(async (tx) => {
    const replaced = text((await tx.get(ref)).get('checkout_session_id'));
    tx.set(ref, { checkout_session_id: sessionId }, { merge: true });
    return replaced;
  });
  if (!previous || previous === sessionId) return;
  try {
    await stripe().checkout.sessions.expire(previous);
  } catch (error) {
    // A session already completed or expired cannot be expired: nothing is left open.
    if (stripeStatusOf(error) !== 400 && stripeStatusOf(error) !== 404) throw error;
  }
}

export async function organizationOfCustomer(customerId: string): Promise<string | null> {
  const snap = await customersCollection().doc(customerId).get();
  return snap.exists ? text(snap.get('organization_id')) : null;
}

function planOfPrice(priceId: string | undefined): PlanId | null {
  return PLAN_IDS.find((plan) => priceIdOf(plan) === priceId) ?? null;
}

const idOf = (value: unknown) => (typeof value === 'string' ? value : text((value as { id?: unknown } | null | undefined)?.id));

/** Which ids an event is about, before anything is looked up. */
interface EventReferences {
  customerId: string;
  subscriptionId: string;
  /** The organization the event's own fields name: never trusted, only compared with the binding. */
  claimedOrgId: unknown;
  /** checkout.session.completed and customer.subscription.created may replace the subscription held. */
  replaces: boolean;
}

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

/** What the event says about the subscription. */
interface SubscriptionChange {
  status: string;
  /** undefined: the event does not say (a failed invoice), keep what is known. */
  plan?: PlanId | null;
  currentPeriodEnd?: number | null;
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
  const outcome = await applyChange(event, orgId, references, change);
  // A duplicate too: Stripe retries an event whose follow-up failed, and the follow-up is idempotent.
  if (outcome !== 'ignored') await options.afterChange?.(orgId);
  return outcome;
}

/**
 * Whether the event may change the organization: it is about the subscription held, or it brings a new one
 * (with none held yet, an update that overtook its "created" event may adopt its subscription).
 */
function concernsHeldSubscription(event: Stripe.Event, held: string | null, references: EventReferences): boolean {
  if (held === references.subscriptionId || references.replaces) return true;
  return held === null && event.type === 'customer.subscription.updated';
}

/** The readable summary: status, plan, period end; what the event does not say is kept for the same subscription. */
function summaryOf(event: Stripe.Event, change: SubscriptionChange, current: Record<string, unknown>, same: boolean) {
  const kept = (field: string) => (same ? (current[field] ?? null) : null);
  const stillPastDue = same && current.status === 'past_due';
  return {
    status: change.status,
    plan: change.plan === undefined ? kept('plan') : change.plan,
    current_period_end: change.currentPeriodEnd ? new Date(change.currentPeriodEnd * 1000).toISOString() : kept('current_period_end'),
    past_due_since:
      change.status !== 'past_due' ? null : stillPastDue ? kept('past_due_since') : new Date(event.created * 1000).toISOString(),
  };
}

async function applyChange(event: Stripe.Event, orgId: string, references: EventReferences, change: SubscriptionChange) {
  const outcome = await adminDb().runTransaction(async (tx) => {
    const record = eventsCollection().doc(event.id);
    const orgRef = organizationsCollection().doc(orgId);
    const [recorded, org, billing] = await tx.getAll(record, orgRef, billingDocument(orgId));
    if (recorded!.exists) return 'duplicate' as const;
    tx.create(record, { type: event.type, created: event.created, received_at: FieldValue.serverTimestamp() });
    if (!org!.exists) return 'organization gone';
    const account = accountFrom(billing!.data(), org!.data());
    if (account.eventCreated !== null && account.eventCreated > event.created) return 'older than the last applied event';
    const held = account.subscriptionId;
    if (!concernsHeldSubscription(event, held, references)) return 'about another subscription than the one held';

    const current = (org!.get('subscription') ?? {}) as Record<string, unknown>;
    const same = held === references.subscriptionId;
    if (!same && held && holdsLiveSubscription({ status: String(current.status) })) {
      log.warn(
        { component: 'billing', ...labels({ org: orgId }), held, new: references.subscriptionId },
        'organization now has a second subscription; the one it held is still billed',
      );
    }
    tx.update(orgRef, {
      subscription: summaryOf(event, change, current, same),
      has_billing_account: true,
      // Written by earlier versions, where every member could read it.
      stripe_customer_id: FieldValue.delete(),
    });
    tx.set(
      billingDocument(orgId),
      { customer_id: references.customerId, subscription_id: references.subscriptionId, event_created: event.created },
      { merge: true },
    );
    return 'applied' as const;
  });
  if (outcome === 'applied' || outcome === 'duplicate') return outcome;
  return ignored(event, outcome, { organization: orgId, subscription: references.subscriptionId });
}
