/**
 * The customer's own Stripe account the sandbox's Stripe also plays (payments as a conversion source):
 * its restricted keys list that account's charges (`GET /v1/charges`, Stripe's list format and paging,
 * `GET /v1/charges/{id}`), and a test payment is made with `createCharge()`, `POST /__fake/charges` or
 * the form on the fake's index page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathPattern } from '@/sandbox/routes';
import { escapeHtml, readBody } from '@/sandbox/server';
import { html, id, json, noSuch, now, parseStripeForm, stripeError, type Json } from '@/sandbox/stripe/wire';

/** A payment in the customer account: amount in the currency's smallest unit, as in Stripe's API. */
export interface NewCharge {
  amount: number;
  currency: string;
  email?: string | null;
  name?: string | null;
  phone?: string | null;
  status?: 'succeeded' | 'failed' | 'pending';
  metadata?: Record<string, string>;
  /** Unix seconds; now by default. */
  created?: number;
}

/**
 * Restricted keys of the sandbox's "customer" Stripe account and what they may do: one that can
 * read charges (connect it as a payment source) and one that cannot.
 */
export const RESTRICTED_KEYS: Record<string, string[]> = {
  rk_test_sandboxChargesRead: ['charges_read'],
  rk_test_sandboxNoCharges: [],
};

/** One charge, as a restricted key reads it. */
const CHARGE_PATH = pathPattern('/v1/charges/:charge');

const CHARGE_STATUSES = ['succeeded', 'failed', 'pending'] as const;
/** Metadata a test payment form carries: the click ids a shop would have kept with the order. */
const CLICK_ID_FIELDS = ['gclid', 'gbraid', 'wbraid', 'fbclid', 'fbc', 'fbp', 'msclkid'] as const;

/** What Stripe would refuse in a new charge, as its param and message. */
function chargeInputError(input: NewCharge): { param: string; message: string } | null {
  if (!Number.isInteger(input.amount) || input.amount < 1)
    return { param: 'amount', message: 'Invalid integer: amount must be a positive integer in the smallest currency unit.' };
  if (input.amount > 99_999_999) return { param: 'amount', message: 'Amount must be no more than 999,999.99.' };
  if (!/^[a-zA-Z]{3}$/.test(input.currency ?? '')) return { param: 'currency', message: `Invalid currency: ${input.currency}.` };
  if (input.email && !/^[^\s@]+@[^\s@]+$/.test(input.email)) return { param: 'email', message: `Invalid email address: ${input.email}` };
  if (input.status && !CHARGE_STATUSES.includes(input.status))
    return { param: 'status', message: `Invalid status: must be one of ${CHARGE_STATUSES.join(', ')}.` };
  if (input.created !== undefined && (!Number.isInteger(input.created) || input.created < 0))
    return { param: 'created', message: 'Invalid integer: created.' };
  return null;
}

/**
 * A new charge from the fields of `POST /__fake/charges` (JSON, or a form with Stripe's bracket keys):
 * click ids at the top level go into metadata, empty fields are left out.
 */
function chargeFromFields(fields: Json): NewCharge {
  const text = (value: unknown) =>
    value === undefined || value === null || String(value).trim() === '' ? undefined : String(value).trim();
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries((fields.metadata as Json | undefined) ?? {})) if (text(value)) metadata[key] = text(value)!;
  for (const key of CLICK_ID_FIELDS) if (text(fields[key])) metadata[key] = text(fields[key])!;
  const number = (value: unknown) => (text(value) === undefined ? undefined : Number(text(value)));
  return {
    amount: number(fields.amount) ?? NaN,
    currency: text(fields.currency) ?? '',
    email: text(fields.email) ?? null,
    name: text(fields.name) ?? null,
    phone: text(fields.phone) ?? null,
    status: (text(fields.status) ?? 'succeeded') as NewCharge['status'],
    metadata,
    created: number(fields.created),
  };
}

/** The customer account: its charges, the reads of its restricted keys, and the pages that make payments. */
export function createChargeAccount() {
  const charges = new Map<string, Json>();
  const chargeReads: Array<{ path: string; stripeVersion: string | null }> = [];
  let chargesDelayMs = 0;

  function createCharge(input: NewCharge): Json {
    const invalid = chargeInputError(input);
    if (invalid) throw new Error(`createCharge: ${invalid.message}`);
    const status = input.status ?? 'succeeded';
    const succeeded = status === 'succeeded';
    const charge: Json = {
      id: id('ch'),
      object: 'charge',
      amount: input.amount,
      amount_captured: succeeded ? input.amount : 0,
      amount_refunded: 0,
      balance_transaction: succeeded ? id('txn') : null,
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: input.email ?? null,
        name: input.name ?? null,
        phone: input.phone ?? null,
      },
      captured: succeeded,
      created: input.created ?? now(),
      currency: input.currency.toLowerCase(),
      customer: null,
      description: null,
      failure_code: status === 'failed' ? 'card_declined' : null,
      failure_message: status === 'failed' ? 'Your card was declined.' : null,
      livemode: false,
      metadata: { ...(input.metadata ?? {}) },
      outcome:
        status === 'failed'
          ? {
              network_status: 'declined_by_network',
              reason: 'generic_decline',
              risk_level: 'normal',
              seller_message: 'The bank did not return any further details with this decline.',
              type: 'issuer_declined',
            }
          : {
              network_status: 'approved_by_network',
              reason: null,
              risk_level: 'normal',
              seller_message: 'Payment complete.',
              type: 'authorized',
            },
      paid: succeeded,
      payment_intent: id('pi'),
      payment_method: id('pm'),
      receipt_email: input.email ?? null,
      refunded: false,
      status,
    };
    charges.set(charge.id as string, charge);
    return charge;
  }

  /**
   * `GET /v1/charges` of the customer account: newest first (the later-made first within a second),
   * `created` as a number or with gt/gte/lt/lte, `limit` 1–100 (10 by default), `starting_after` or
   * `ending_before` a charge id; unknown parameters refused, as Stripe does.
   */
  function listCharges(res: ServerResponse, query: URLSearchParams) {
    const allowed =
      /^(created(\[(gt|gte|lt|lte)\])?|customer|payment_intent|transfer_group|limit|starting_after|ending_before|expand\[\d*\])$/;
    const filters: Array<(created: number) => boolean> = [];
    for (const [key, value] of query) {
      if (!allowed.test(key)) return stripeError(res, 400, `Received unknown parameter: ${key}`, key);
      const bound = /^created(?:\[(gt|gte|lt|lte)\])?$/.exec(key);
      if (!bound) continue;
      if (!/^\d+$/.test(value)) return stripeError(res, 400, `Invalid integer: ${value}`, key);
      const limit = Number(value);
      const op = bound[1];
      filters.push((created) =>
        op === 'gt'
          ? created > limit
          : op === 'gte'
            ? created >= limit
            : op === 'lt'
              ? created < limit
              : op === 'lte'
                ? created <= limit
                : created === limit,
      );
    }
    let limit = 10;
    if (query.has('limit')) {
      const raw = query.get('limit')!;
      if (!/^-?\d+$/.test(raw)) return stripeError(res, 400, `Invalid integer: ${raw}`, 'limit');
      limit = Number(raw);
      if (limit < 1) return stripeError(res, 400, `This value must be greater than or equal to 1 (it currently is '${raw}').`, 'limit');
      if (limit > 100) return stripeError(res, 400, `This value must be less than or equal to 100 (it currently is '${raw}').`, 'limit');
    }
    const after = query.get('starting_after');
    const before = query.get('ending_before');
    if (after && before) return stripeError(res, 400, 'You may only specify one of these parameters: ending_before, starting_after.');
    const made = [...charges.values()];
    const ordered = made
      .map((charge, index) => ({ charge, index }))
      .sort((a, b) => (b.charge.created as number) - (a.charge.created as number) || b.index - a.index)
      .map(({ charge }) => charge);
    const cursor = after ?? before;
    const position = cursor ? ordered.findIndex((charge) => charge.id === cursor) : -1;
    if (cursor && position < 0)
      return json(res, 400, {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such charge: '${cursor}'`,
          param: after ? 'starting_after' : 'ending_before',
        },
      });
    const matches = (charge: Json) =>
      filters.every((filter) => filter(charge.created as number)) &&
      (!query.get('customer') || charge.customer === query.get('customer')) &&
      (!query.get('payment_intent') || charge.payment_intent === query.get('payment_intent'));
    let data: Json[];
    let hasMore: boolean;
    if (before) {
      // The page just before the cursor (newer charges), still newest first.
      const newer = ordered.slice(0, position).filter(matches);
      data = newer.slice(Math.max(0, newer.length - limit));
      hasMore = newer.length > limit;
    } else {
      const rest = ordered.slice(position + 1).filter(matches);
      data = rest.slice(0, limit);
      hasMore = rest.length > limit;
    }
    return json(res, 200, { object: 'list', url: '/v1/charges', has_more: hasMore, data });
  }

  /**
   * `GET /v1/charges` and `GET /v1/charges/{id}` with a customer's restricted key (payments as a conversion
   * source): read if the key has the permission, as slowly as `delayCharges` says.
   */
  async function readCharges(res: ServerResponse, url: URL, auth: string, permissions: readonly string[], chargeId: string | null) {
    if (!permissions.includes('charges_read')) {
      return stripeError(
        res,
        403,
        `The provided key '${auth.slice(7, 19)}***' does not have the required permissions for this endpoint on account 'acct_sandbox'. Having the 'rak_charge_read' permission would allow this request to continue.`,
      );
    }
    if (chargesDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, chargesDelayMs));
    if (chargeId === null) return listCharges(res, url.searchParams);
    const charge = charges.get(chargeId);
    return charge ? json(res, 200, charge) : noSuch(res, 'charge', chargeId);
  }

  /**
   * A read with a customer's restricted key: every one is noted with its Stripe-Version; a charge or the
   * charges list is answered, anything else is false (the secret-key checks come next).
   */
  function restrictedRead(req: IncomingMessage, res: ServerResponse, url: URL, auth: string, token: string) {
    const restricted = RESTRICTED_KEYS[token];
    if (!restricted || req.method !== 'GET') return false;
    const version = req.headers['stripe-version'];
    chargeReads.push({ path: url.pathname, stripeVersion: typeof version === 'string' ? version : null });
    const chargeId = url.pathname === '/v1/charges' ? null : CHARGE_PATH.exec(url.pathname)?.groups?.charge;
    return chargeId === undefined ? false : readCharges(res, url, auth, restricted, chargeId);
  }

  /**
   * The fake's index: the customer account's restricted keys, a "Make a test payment" form (what a
   * customer paying in a shop would leave in Stripe) and the latest charges.
   */
  function indexPage(res: ServerResponse, notice: { made?: string; error?: string } = {}, status = 200) {
    const latest = [...charges.values()].slice(-20).reverse();
    const keys = Object.entries(RESTRICTED_KEYS)
      .map(
        ([key, permissions]) =>
          `<li><code>${escapeHtml(key)}</code> — ${permissions.length ? 'can read charges' : 'cannot read charges'}</li>`,
      )
      .join('');
    const field = (name: string, label: string, extra = '') => `<label>${label}<input name="${name}" ${extra}></label>`;
    const rows = latest
      .map(
        (charge) =>
          `<tr><td><code>${escapeHtml(charge.id)}</code></td><td>${new Date((charge.created as number) * 1000).toISOString()}</td><td>${escapeHtml(charge.amount)} ${escapeHtml(String(charge.currency).toUpperCase())}</td><td>${escapeHtml(charge.status)}</td><td>${escapeHtml((charge.billing_details as Json).email ?? '')}</td></tr>`,
      )
      .join('');
    const body = `<h1>Stripe sandbox</h1>
<p class="muted">A customer's Stripe account, for payments as a conversion source. Connect it in SignalBridge with a restricted key:</p><ul>${keys}</ul>
${notice.made ? `<p role="status">Payment <code>${escapeHtml(notice.made)}</code> made.</p>` : ''}${notice.error ? `<p role="alert" class="error">${escapeHtml(notice.error)}</p>` : ''}
<h2>Make a test payment</h2>
<p class="muted">The conversion worker reads new successful payments every PAYMENTS_POLL_MS (20 s by default) and sends them to the conversions fed by the payment account.</p>
<form method="post" action="/__fake/charges">
${field('amount', 'Amount, in the smallest unit (4900 = 49.00 USD; yen as is)', 'type="number" min="1" value="4900" required')}
${field('currency', 'Currency', 'value="usd" maxlength="3" required')}
${field('email', 'Customer email', 'type="email" value="buyer@example.com"')}
${field('name', 'Customer name (optional)', '')}
<label>Status<select name="status"><option value="succeeded">Succeeded</option><option value="failed">Failed (declined)</option><option value="pending">Pending</option></select></label>
${field('gclid', 'gclid (metadata, optional)', '')}
${field('fbclid', 'fbclid (metadata, optional)', '')}
${field('msclkid', 'msclkid (metadata, optional)', '')}
<button type="submit">Make a test payment</button>
</form>
<h2>Latest payments</h2>${rows ? `<table><tr><th>Charge</th><th>Created</th><th>Amount</th><th>Status</th><th>Email</th></tr>${rows}</table>` : '<p class="muted">None yet.</p>'}`;
    html(res, body, status);
  }

  /**
   * `POST /__fake/charges` (JSON or form): makes a payment. A form sent by a browser goes back to
   * the index (303), anything else gets the charge as JSON, or Stripe's error shape.
   */
  async function makeCharge(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST') return stripeError(res, 405, 'Use POST');
    const raw = await readBody(req);
    const isJson = (req.headers['content-type'] ?? '').includes('json');
    let fields: Json;
    try {
      fields = isJson ? (JSON.parse(raw || '{}') as Json) : parseStripeForm(raw);
    } catch {
      return stripeError(res, 400, 'Invalid JSON body.');
    }
    const fromBrowser = !isJson && (req.headers.accept ?? '').includes('text/html');
    const input = chargeFromFields(fields);
    const invalid = chargeInputError(input);
    if (invalid)
      return fromBrowser ? indexPage(res, { error: invalid.message }, 400) : stripeError(res, 400, invalid.message, invalid.param);
    const charge = createCharge(input);
    if (!fromBrowser) return json(res, 200, charge);
    res.writeHead(303, { Location: `/?charge=${encodeURIComponent(charge.id as string)}` });
    return res.end();
  }

  return {
    charges,
    chargeReads,
    createCharge,
    restrictedRead,
    indexPage,
    makeCharge,
    delay: (ms: number) => {
      chargesDelayMs = ms;
    },
  };
}
