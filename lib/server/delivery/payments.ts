import { sourceKeyOf } from '@/lib/shared/conversions/conversion';
import { conversionEventSchema, type ConversionEvent } from '@/lib/shared/conversions/event';
import { stripe, type StripeCredential } from '@/lib/server/connectors/stripe';
import { isPaidCharge, listChargesSince, type ChargeListing, type StripeCharge } from '@/lib/server/connectors/stripe/charges';
import { inLanes, startPoller } from '@/lib/server/delivery/poller';
import { hashPerson, maskEmail, type SourceDefaults } from '@/lib/server/delivery/normalize';
import { readCredential } from '@/lib/server/credentials';
import { DomainError } from '@/lib/server/errors';
import { errorFields, labels, log } from '@/lib/server/log';
import { publishConversions } from '@/lib/server/queue/pubsub';
import { activePaymentConversions, conversionsOfSource } from '@/lib/server/repos/conversions';
import { claimPaymentPoll, finishPaymentPoll, type PaymentsCursor } from '@/lib/server/repos/payments';
import { recordDelivery } from '@/lib/server/repos/deliveryLog';

export type { PaymentsCursor };

/**
 * Payments as a conversion source: every interval, each payment account that feeds an active
 * conversion has its new successful charges read from Stripe and published as conversion events
 * (source "payments:{id}"), which the delivery worker routes like any other.
 *
 * Nothing lives in memory between polls; two workers share only Firestore, on the payment account's
 * document (organizations/{org}/payments/{id}):
 * - `poll_lease_until` / `poll_lease_token`: a worker claims an account in a transaction before
 *   polling it, so two never poll one account at once; a dead worker's lease simply expires.
 * - `poll_cursor: { created, ids }`: how far the account was read. `created` is a Unix second and
 *   `ids` the charges of exactly that second already published, so a charge made later in that same
 *   second is still taken and none is published twice. The next listing starts at `created`.
 * - `poll_error: { code, message, at }`: why the last poll failed (a rolled key…), cleared by the next success.
 *
 * Publish, then save the cursor: a crash in between publishes those charges again, and the
 * platforms deduplicate them by event id (the charge id). The cursor is saved only by the lease's
 * holder, so a worker whose lease ran out never moves it.
 */

/** Stripe's amounts are in the smallest unit: cents, but yen as is and thousandths of a dinar. */
const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** A Stripe amount as a value in the currency's unit (4999 USD → 49.99, 5000 JPY → 5000). */
export function chargeValue(amount: number, currency: string): number {
  const code = currency.toUpperCase();
  const divisor = ZERO_DECIMAL.has(code) ? 1 : THREE_DECIMAL.has(code) ? 1000 : 100;
  return Number((amount / divisor).toFixed(3));
}

/** Click ids a shop kept in the payment's metadata, within the lengths the event allows. */
const CLICK_IDS = {
  gclid: 200,
  gbraid: 200,
  wbraid: 200,
  fbc: 500,
  fbp: 500,
  msclkid: 200,
  li_fat_id: 200,
  ttclid: 500,
  ttp: 500,
} as const;

function clickIdsOf(charge: StripeCharge): ConversionEvent['clickIds'] {
  const metadata = new Map(Object.entries(charge.metadata ?? {}).map(([key, value]) => [key.toLowerCase(), String(value).trim()]));
  const fbclid = metadata.get('fbclid');
  if (!metadata.get('fbc') && fbclid) metadata.set('fbc', `fb.1.${charge.created * 1000}.${fbclid}`);
  const clickIds: ConversionEvent['clickIds'] = {};
  for (const [name, max] of Object.entries(CLICK_IDS) as Array<[keyof typeof CLICK_IDS, number]>) {
    const value = metadata.get(name);
    if (value && value.length <= max) clickIds[name] = value;
  }
  return clickIds;
}

/** A successful charge → the hashed conversion event published for it (its id is the charge id). */
export function chargeToEvent(charge: StripeCharge, defaults: SourceDefaults = {}): ConversionEvent {
  const billing = charge.billing_details ?? { email: null, name: null, phone: null };
  const email = billing.email || charge.receipt_email || undefined;
  const [first, ...rest] = (billing.name ?? '').trim().split(/\s+/).filter(Boolean);
  const address = billing.address ?? {};
  const country = address.country && /^[A-Za-z]{2}$/.test(address.country) ? address.country : undefined;
  const {
    user,
    address: googleAddress,
    withheld,
  } = hashPerson(
    {
      email,
      phone: billing.phone || undefined,
      firstName: first,
      lastName: rest.length > 0 ? rest.join(' ') : undefined,
      city: address.city || undefined,
      state: address.state || undefined,
      postalCode: address.postal_code || undefined,
      countryCode: country,
    },
    { ...defaults, sourceLabel: 'payment account' },
  );
  const masked = maskEmail(email);
  return {
    id: charge.id,
    name: 'Purchase',
    time: charge.created,
    value: chargeValue(charge.amount, charge.currency),
    currency: charge.currency.toUpperCase(),
    user,
    ...(googleAddress ? { address: googleAddress } : {}),
    ...(withheld.length > 0 ? { withheld } : {}),
    clickIds: clickIdsOf(charge),
    context: { actionSource: 'system_generated' },
    ...(masked ? { maskedEmail: masked } : {}),
  };
}

/** The listed charges not yet published: those of the cursor's second it already holds are left out. */
export function unseenCharges(charges: StripeCharge[], cursor: PaymentsCursor | null): StripeCharge[] {
  if (!cursor) return charges;
  const done = new Set(cursor.ids);
  return charges.filter((charge) => charge.created > cursor.created || (charge.created === cursor.created && !done.has(charge.id)));
}

/**
 * The cursor after a listing from `since`: its newest second (or the end of the stretch it covered)
 * with every charge listed in that second, added to those the cursor held when it is the same second.
 */
export function nextCursor(cursor: PaymentsCursor | null, since: number, listing: ChargeListing): PaymentsCursor {
  const newest = listing.charges.reduce<number | null>(
    (top, charge) => (top === null || charge.created > top ? charge.created : top),
    null,
  );
  const created = listing.through ?? newest;
  if (created === null) return cursor ?? { created: since, ids: [] };
  const ids = listing.charges.filter((charge) => charge.created === created).map((charge) => charge.id);
  const kept = cursor && cursor.created === created ? cursor.ids : [];
  return { created, ids: [...new Set([...kept, ...ids])] };
}

interface Account {
  orgId: string;
  paymentId: string;
  /** Where a first read starts: when its earliest active conversion was made (Unix seconds). */
  startAt: number;
}

/** The payment accounts feeding at least one active conversion, once each. */
async function accountsToPoll(): Promise<Account[]> {
  const accounts = new Map<string, Account>();
  const now = Math.floor(Date.now() / 1000);
  for (const { orgId, conversion } of await activePaymentConversions()) {
    if (conversion.source.type !== 'payments') continue;
    const made = Math.floor(Date.parse(conversion.createdAt) / 1000);
    // A conversion without its creation time (epoch) starts now, never at the account's whole history.
    const startAt = made > 0 ? made : now;
    const key = `${orgId}/${conversion.source.paymentId}`;
    const known = accounts.get(key);
    if (!known || startAt < known.startAt) accounts.set(key, { orgId, paymentId: conversion.source.paymentId, startAt });
  }
  return [...accounts.values()];
}

/** Polls one account if it can be claimed; answers how many payments it published. */
async function pollAccount(account: Account, leaseMs: number): Promise<number> {
  const { orgId, paymentId } = account;
  const claim = await claimPaymentPoll(orgId, paymentId, leaseMs);
  if (!claim) return 0;
  try {
    const credential = (await readCredential(orgId, claim.credentialId)) as StripeCredential;
    const session = await stripe.openSession(credential);
    const since = claim.cursor?.created ?? account.startAt;
    const listing = await listChargesSince(session, since);
    const events: ConversionEvent[] = [];
    const unreadable: Array<{ id: string; status: 'not_sent'; reason: string }> = [];
    for (const charge of unseenCharges(listing.charges, claim.cursor).filter(isPaidCharge)) {
      const event = chargeToEvent(charge, { defaultCountry: claim.defaultCountry });
      const checked = conversionEventSchema.safeParse(event);
      if (checked.success) events.push(event);
      else {
        const issue = checked.error.issues[0];
        unreadable.push({
          id: charge.id.slice(0, 100),
          status: 'not_sent',
          reason: `Not sent: the payment makes no valid event (${issue?.path.join('.') || 'event'}: ${issue?.message ?? 'invalid'})`,
        });
      }
    }
    const source = sourceKeyOf({ type: 'payments', paymentId });
    if (events.length > 0) await publishConversions(events, { org: orgId, source });
    // Nothing vanishes: a payment that makes no event is logged not sent in each of the account's conversions, before the cursor moves past it.
    if (unreadable.length > 0) {
      const conversions = (await conversionsOfSource(orgId, source)).filter((conversion) => conversion.status === 'active');
      await Promise.all(
        conversions.map((conversion) =>
          recordDelivery(orgId, conversion.id, { test: false, latencyMs: null, rows: unreadable, parked: [] }),
        ),
      );
    }
    const saved = await finishPaymentPoll(orgId, paymentId, claim.token, { cursor: nextCursor(claim.cursor, since, listing) });
    const ids = { ...labels({ org: orgId }), payment: paymentId };
    if (!saved) log.warn({ component: 'payments', ...ids }, 'poll outlived its lease; the cursor is left to the next holder');
    if (events.length > 0) log.info({ component: 'payments', ...ids, published: events.length }, 'payments published');
    if (claim.lastError) log.info({ component: 'payments', ...ids }, 'payments of an account read again');
    return events.length;
  } catch (error) {
    const code = error instanceof DomainError ? error.code : 'internal';
    const message = error instanceof Error ? error.message : String(error);
    // Logged when it starts (a dead key fails every poll until the account is connected again); the payment account keeps the reason.
    if (code !== claim.lastError)
      log[code === 'internal' ? 'error' : 'warn'](
        {
          component: 'payments',
          ...labels({ org: orgId }),
          payment: paymentId,
          code,
          ...(code === 'internal' ? errorFields(error) : { reason: message }),
        },
        'could not read the payments of an account',
      );
    await finishPaymentPoll(orgId, paymentId, claim.token, { error: { code, message } }).catch(() => undefined);
    return 0;
  }
}

/** One round over every account to poll, a few at a time; answers how many payments were published. */
export async function pollPaymentsOnce({
  leaseMs = 60_000,
  concurrency = 4,
}: { leaseMs?: number; concurrency?: number } = {}): Promise<number> {
  let published = 0;
  await inLanes(await accountsToPoll(), concurrency, async (account) => {
    published += await pollAccount(account, leaseMs);
  });
  return published;
}

/** Polls every `intervalMs` until stopped. The lease outlasts a slow round (requests time out at 15 s). */
export function startPaymentsPoller({ intervalMs, leaseMs = Math.max(60_000, 3 * intervalMs) }: { intervalMs: number; leaseMs?: number }): {
  stop(): Promise<void>;
} {
  return startPoller('payments', intervalMs, () => pollPaymentsOnce({ leaseMs }));
}
