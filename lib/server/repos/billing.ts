import { FieldValue, type DocumentData } from 'firebase-admin/firestore';
import { textOrNull } from '@/lib/shared/text';
import type Stripe from 'stripe';
import { holdsLiveSubscription } from '@/lib/shared/billing/gate';
import type { PlanId } from '@/lib/shared/billing/plans';
import { adminDb } from '@/lib/server/firebaseAdmin';
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

const number = (value: unknown) => (typeof value === 'number' ? value : null);

/** Reads the server-only document; organizations written before it existed kept the ids on themselves. */
function accountFrom(billing: DocumentData | undefined, organization: DocumentData | undefined): BillingAccount {
  const legacy = (organization?.subscription ?? {}) as Record<string, unknown>;
  return {
    customerId: textOrNull(billing?.customer_id) ?? textOrNull(organization?.stripe_customer_id) ?? textOrNull(legacy.customer_id),
    subscriptionId: textOrNull(billing?.subscription_id) ?? textOrNull(legacy.subscription_id),
    checkoutSessionId: textOrNull(billing?.checkout_session_id),
    eventCreated: number(billing?.event_created) ?? number(legacy.event_created),
  };
}

/** The organization's Stripe ids; `organization` is the document the handler already loaded. */
export async function billingAccountOf(orgId: string, organization: DocumentData): Promise<BillingAccount> {
  return accountFrom((await billingDocument(orgId).get()).data(), organization);
}

/** Binds a customer our server just created to its organization: the only binding webhook events are applied by. */
export async function bindCustomer(orgId: string, customerId: string): Promise<void> {
  const batch = adminDb().batch();
  batch.set(billingDocument(orgId), { customer_id: customerId }, { merge: true });
  batch.set(customersCollection().doc(customerId), { organization_id: orgId });
  batch.update(organizationsCollection().doc(orgId), { has_billing_account: true });
  await batch.commit();
}

/** Records the checkout just opened as the organization's open one; answers the one it replaces (null: none). */
export async function swapOpenCheckout(orgId: string, sessionId: string): Promise<string | null> {
  const ref = billingDocument(orgId);
  return adminDb().runTransaction(async (tx) => {
    const replaced = textOrNull((await tx.get(ref)).get('checkout_session_id'));
    tx.set(ref, { checkout_session_id: sessionId }, { merge: true });
    return replaced;
  });
}

export async function organizationOfCustomer(customerId: string): Promise<string | null> {
  const snap = await customersCollection().doc(customerId).get();
  return snap.exists ? textOrNull(snap.get('organization_id')) : null;
}

/** Which ids an event is about, before anything is looked up. */
export interface EventReferences {
  customerId: string;
  subscriptionId: string;
  /** The organization the event's own fields name: never trusted, only compared with the binding. */
  claimedOrgId: unknown;
  /** checkout.session.completed and customer.subscription.created may replace the subscription held. */
  replaces: boolean;
}

/** What the event says about the subscription. */
export interface SubscriptionChange {
  status: string;
  /** undefined: the event does not say (a failed invoice), keep what is known. */
  plan?: PlanId | null;
  currentPeriodEnd?: number | null;
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

/**
 * Applies an event's change to the organization in one transaction, at most once per event id (its record in
 * `stripe_events`), never older over newer, only for the subscription held (or one that replaces it):
 * 'applied', 'duplicate', or why it was left alone.
 */
export async function applySubscriptionChange(
  event: Stripe.Event,
  orgId: string,
  references: EventReferences,
  change: SubscriptionChange,
): Promise<string> {
  return adminDb().runTransaction(async (tx) => {
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
}
