import { stripeConfig, stripeHeaders } from '@/lib/server/connectors/stripe/config';
import { requestJson } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Session } from '@/lib/server/connectors/types';
import { log } from '@/lib/server/log';

/**
 * Reading a customer's charges with their restricted key (payments as a conversion source).
 * Stripe lists newest first and pages with `starting_after`; the payments poller wants a complete
 * stretch of time, oldest first, of bounded size. So a listing that would exceed the bound is
 * narrowed to the older half of its time range until it fits: what comes back is every charge
 * created in [since, through], never the newest part of it with a gap below.
 */

/** A charge as Stripe shows it: only the fields we read. */
export interface StripeCharge {
  id: string;
  object: 'charge';
  /** In the currency's smallest unit (cents; yen as is; thousandths for BHD, KWD…). */
  amount: number;
  /** Lowercase ISO code. */
  currency: string;
  status: 'succeeded' | 'failed' | 'pending';
  paid: boolean;
  captured: boolean;
  refunded: boolean;
  /** Unix seconds. */
  created: number;
  billing_details: {
    email: string | null;
    name: string | null;
    phone: string | null;
    address?: { city?: string | null; state?: string | null; postal_code?: string | null; country?: string | null } | null;
  } | null;
  receipt_email: string | null;
  metadata: Record<string, string> | null;
  livemode: boolean;
}

/** Stripe's largest page. */
const PAGE = 100;
/** Charges read per poll at most (the listing is narrowed in time to stay under it). */
export const MAX_CHARGES_PER_POLL = 1000;

/** A successful payment: the money moved (a pending or failed charge is no conversion). */
export const isPaidCharge = (charge: StripeCharge) => charge.status === 'succeeded' && charge.paid;

/**
 * Classifies a refused listing. 401: the key was rolled or deleted (only the customer can give a
 * new one); 403: the key lost "Charges: Read"; 429: slow down; 5xx: try later.
 */
export function chargesError(status: number, body: Record<string, unknown>): PlatformError {
  const error = body.error as { type?: string; code?: string; message?: string } | undefined;
  if (status === 401)
    return new PlatformError(
      'stripe',
      'needs_reauth',
      'Stripe no longer accepts this restricted key: it was rolled or deleted. Connect the payment account again with a new key.',
    );
  if (status === 403)
    return new PlatformError(
      'stripe',
      'forbidden',
      'This restricted key can no longer read charges. In Stripe, give it “Charges: Read” access.',
    );
  if (status === 429)
    return new PlatformError('stripe', 'rate_limited', 'Stripe asks us to slow down. Payments will be read again shortly.');
  if (status >= 500) {
    log.warn({ component: 'platforms', platform: 'stripe', status, platformError: error?.type }, 'Stripe charges listing failed');
    return new PlatformError('stripe', 'retryable', 'Stripe could not list the payments. They will be read again shortly.');
  }
  return new PlatformError('stripe', 'invalid', `Stripe refused the listing of payments: ${error?.message ?? `status ${status}`}`);
}

/** Newest first, up to `max` + 1 charges of [since, until]: `complete` says whether that is all of them. */
async function collect(
  session: Session,
  since: number,
  until: number | null,
  max: number | null,
): Promise<{ charges: StripeCharge[]; complete: boolean }> {
  const charges: StripeCharge[] = [];
  let after: string | null = null;
  for (;;) {
    const query = new URLSearchParams({ 'created[gte]': String(since), limit: String(max === null ? PAGE : Math.min(PAGE, max + 1)) });
    if (until !== null) query.set('created[lte]', String(until));
    if (after) query.set('starting_after', after);
    const { status, body } = await requestJson('stripe', `${stripeConfig().apiUrl}/v1/charges?${query}`, {
      headers: stripeHeaders(session.accessToken),
    });
    if (status !== 200) throw chargesError(status, body);
    const page = (body.data ?? []) as StripeCharge[];
    charges.push(...page);
    if (!body.has_more || page.length === 0) return { charges, complete: true };
    if (max !== null && charges.length > max) return { charges, complete: false };
    after = page[page.length - 1]!.id;
  }
}

/** A complete stretch of charges: all of [since, through] (through null: up to now), oldest first. */
export interface ChargeListing {
  charges: StripeCharge[];
  through: number | null;
}

/**
 * Every charge (whatever its status) created at or after `since`, oldest first, about `max` at
 * most: when there are more, all the charges of an earlier stretch [since, through], so a cursor
 * moved to `through` misses nothing. A stretch of under two seconds holding more than `max` is
 * returned whole. Failed and pending charges are returned too: the cursor moves past them.
 */
export async function listChargesSince(
  session: Session,
  since: number,
  { max = MAX_CHARGES_PER_POLL }: { max?: number } = {},
): Promise<ChargeListing> {
  let until: number | null = null;
  let bounded = true;
  for (;;) {
    const { charges, complete } = await collect(session, since, until, bounded ? max : null);
    if (complete) return { charges: charges.reverse(), through: until };
    const newest: number = until ?? charges[0]!.created;
    if (newest - since < 2) {
      // Cannot be halved: take these one or two seconds whole.
      until = newest;
      bounded = false;
    } else {
      until = since + Math.floor((newest - since) / 2);
    }
  }
}
