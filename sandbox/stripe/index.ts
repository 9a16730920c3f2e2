/**
 * A fake of the parts of Stripe we use, speaking its wire format: form-encoded requests with
 * bracket keys, JSON objects with `object` fields, `{ error: { type, message, param } }` errors,
 * secret-key auth, and webhooks signed the way Stripe signs them (`Stripe-Signature: t=…,v1=…`).
 * It also serves the hosted pages a user sees: Checkout (a Pay button that completes the session,
 * creates the subscription, sends the webhooks and returns to success_url) and the customer portal
 * (switch plan or cancel the subscription). Used by `npm run dev` and the tests; the real `stripe` SDK talks to it.
 *
 * It also plays a customer's own Stripe account (payments as a conversion source): its restricted keys
 * list that account's charges (`GET /v1/charges`, Stripe's list format and paging), and a test payment
 * is made with `createCharge()`, `POST /__fake/charges` or the form on the fake's index page.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathPattern, routeTable, type RouteHandler } from '@/sandbox/routes';
import { escapeHtml, readBody, serve } from '@/sandbox/server';

type Json = Record<string, unknown>;

export interface FakeStripeOptions {
  secretKey?: string;
  webhookSecret?: string;
  /** Where signed webhooks go (the app's /api/billing/webhook). */
  webhookUrl: string;
  prices?: Array<{ id: string; unit_amount: number; currency: string; nickname: string }>;
  port?: number;
}

export interface FakeStripe {
  url: string;
  secretKey: string;
  webhookSecret: string;
  customers: Map<string, Json>;
  subscriptions: Map<string, Json>;
  checkoutSessions: Map<string, Json>;
  /** The charges of the customer account the restricted keys belong to, in the order they were made. */
  charges: Map<string, Json>;
  /** Makes a payment in the customer account (as a customer paying would), as Stripe shows it. */
  createCharge: (input: NewCharge) => Json;
  /** Rolls a restricted key: from now on Stripe answers 401 (api_key_expired) to it, as after "Roll key". */
  rollKey: (key: string) => void;
  /** Undoes rollKey (tests). */
  restoreKey: (key: string) => void;
  /** Makes the charges listing answer this much later (a slow Stripe: polls that overlap). 0 undoes it. */
  delayCharges: (ms: number) => void;
  /**
   * Every read with a customer's restricted key, with the Stripe-Version it asked for (null: none, and
   * Stripe would then answer in the account's default version, https://docs.stripe.com/api-versions).
   */
  chargeReads: Array<{ path: string; stripeVersion: string | null }>;
  /** Signs a payload as Stripe would: for tests that forge or replay events. */
  sign: (payload: string, timestamp?: number) => string;
  close: () => Promise<void>;
}

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

export const DEFAULT_FAKE_PRICES = [
  { id: 'price_starter_monthly', unit_amount: 4900, currency: 'usd', nickname: 'Starter' },
  { id: 'price_growth_monthly', unit_amount: 14900, currency: 'usd', nickname: 'Growth' },
  { id: 'price_scale_monthly', unit_amount: 39900, currency: 'usd', nickname: 'Scale' },
];

/**
 * Restricted keys of the sandbox's "customer" Stripe account and what they may do: one that can
 * read charges (connect it as a payment source) and one that cannot.
 */
export const RESTRICTED_KEYS: Record<string, string[]> = {
  rk_test_sandboxChargesRead: ['charges_read'],
  rk_test_sandboxNoCharges: [],
};

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);
/** One charge, as a restricted key reads it. */
const CHARGE_PATH = pathPattern('/v1/charges/:charge');

/** Parses Stripe's form encoding (`a[b][0][c]=v`) into nested objects and arrays. */
export function parseStripeForm(body: string): Json {
  const root: Json = {};
  for (const pair of body.split('&').filter(Boolean)) {
    const [rawKey = '', rawValue = ''] = pair.split('=');
    const key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
    const value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    const path = key.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let node: Record<string, unknown> = root;
    path.forEach((part, index) => {
      if (index === path.length - 1) {
        node[part] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(path[index + 1]!);
      node[part] ??= nextIsIndex ? [] : {};
      node = node[part] as Record<string, unknown>;
    });
  }
  return root;
}

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

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': id('req') });
  res.end(JSON.stringify(body));
}

function stripeError(res: ServerResponse, status: number, message: string, param?: string, type = 'invalid_request_error') {
  json(res, status, { error: { type, message, ...(param ? { param } : {}) } });
}

const missing = (res: ServerResponse, param: string) => stripeError(res, 400, `Missing required param: ${param}.`, param);
const noSuch = (res: ServerResponse, kind: string, value: string) => stripeError(res, 404, `No such ${kind}: '${value}'`, 'id');

function html(res: ServerResponse, body: string, status = 200) {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stripe (local sandbox)</title>
<style>body{font-family:system-ui,sans-serif;max-width:440px;margin:4rem auto;padding:0 1rem;color:#1a1f36}
button{font:inherit;font-weight:600;background:#635bff;color:#fff;border:0;border-radius:6px;padding:.7rem 1.2rem;cursor:pointer}
label{display:block;margin:.6rem 0}input,select{display:block;font:inherit;width:100%;box-sizing:border-box;padding:.4rem;margin-top:.2rem}
table{border-collapse:collapse;font-size:.85rem;width:100%}td,th{text-align:left;padding:.25rem .4rem;border-bottom:1px solid #e3e8ee}
.error{color:#c0123c}
.muted{color:#697386}.badge{background:#fff4e6;color:#a34a00;border-radius:999px;padding:.1rem .5rem;font-size:.8rem}</style>
</head><body><p><span class="badge">Local Stripe sandbox</span></p>${body}</body></html>`);
}

/** A Checkout Session as the API shows it: without the creation params we keep for the Pay step. */
function visible(session: Json): Json {
  const shown = { ...session };
  delete shown.line_items;
  delete shown.subscription_data;
  return shown;
}

export async function startFakeStripe(options: FakeStripeOptions): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? 'sk_test_fake_signalbridge';
  const webhookSecret = options.webhookSecret ?? 'whsec_fake_signalbridge';
  const prices = new Map((options.prices ?? DEFAULT_FAKE_PRICES).map((price) => [price.id, price]));
  const customers = new Map<string, Json>();
  const subscriptions = new Map<string, Json>();
  const checkoutSessions = new Map<string, Json>();
  const portalSessions = new Map<string, Json>();
  const charges = new Map<string, Json>();
  const rolledKeys = new Set<string>();
  const chargeReads: FakeStripe['chargeReads'] = [];
  let chargesDelayMs = 0;
  let base = '';

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

  const sign = (payload: string, timestamp = now()) =>
    `t=${timestamp},v1=${createHmac('sha256', webhookSecret).update(`${timestamp}.${payload}`).digest('hex')}`;

  async function sendWebhook(type: string, object: Json) {
    const payload = JSON.stringify({
      id: id('evt'),
      object: 'event',
      api_version: '2026-10-28.endive',
      created: now(),
      livemode: false,
      type,
      data: { object },
    });
    try {
      const response = await fetch(options.webhookUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Stripe-Signature': sign(payload) },
        body: payload,
      });
      if (!response.ok) console.error(`[fake stripe] webhook ${type} answered ${response.status}`);
    } catch (error) {
      console.error(`[fake stripe] webhook ${type} failed`, error);
    }
  }

  function subscriptionFor(session: Json): Json {
    const lineItem = (session.line_items as Json[])[0]!;
    const price = prices.get(lineItem.price as string)!;
    const subscription: Json = {
      id: id('sub'),
      object: 'subscription',
      customer: session.customer,
      status: 'active',
      cancel_at_period_end: false,
      metadata: ((session.subscription_data as Json | undefined)?.metadata as Json) ?? {},
      items: { object: 'list', data: [{ id: id('si'), object: 'subscription_item', price: { ...price, object: 'price' }, quantity: 1 }] },
      current_period_end: now() + 30 * 24 * 3600,
      created: now(),
    };
    subscriptions.set(subscription.id as string, subscription);
    return subscription;
  }

  // Stripe replays the first answer to a POST with the same Idempotency-Key.
  const idempotent = new Map<string, { status: number; body: string }>();

  /** A Stripe API route: the parsed form of a POST (`{}` for a read) comes as its context. */
  type StripeRoute = RouteHandler<Json>;

  const createCustomer: StripeRoute = (_req, res, _url, _params, body) => {
    const customer = { id: id('cus'), object: 'customer', email: body.email ?? null, metadata: body.metadata ?? {}, created: now() };
    customers.set(customer.id, customer);
    return json(res, 200, customer);
  };

  const getPrice: StripeRoute = (_req, res, _url, params) => {
    const price = prices.get(params.price!);
    return price
      ? json(res, 200, {
          ...price,
          object: 'price',
          active: true,
          type: 'recurring',
          recurring: { interval: 'month', interval_count: 1 },
        })
      : noSuch(res, 'price', params.price!);
  };

  /** `POST /v1/checkout/sessions`: a subscription checkout for known prices (and customer, when one is named). */
  const createCheckoutSession: StripeRoute = (_req, res, _url, _params, body) => {
    if (!body.mode) return missing(res, 'mode');
    if (body.mode !== 'subscription') return stripeError(res, 400, 'This sandbox supports mode=subscription only.', 'mode');
    if (!body.success_url) return missing(res, 'success_url');
    const lineItems = body.line_items as Json[] | undefined;
    if (!lineItems?.length) return missing(res, 'line_items');
    for (const [index, item] of lineItems.entries()) {
      if (!prices.has(item.price as string)) return stripeError(res, 400, `No such price: '${item.price}'`, `line_items[${index}][price]`);
    }
    if (body.customer && !customers.has(body.customer as string)) return noSuch(res, 'customer', body.customer as string);
    const session: Json = {
      id: id('cs_test'),
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      customer: body.customer ?? null,
      client_reference_id: body.client_reference_id ?? null,
      metadata: body.metadata ?? {},
      subscription: null,
      success_url: body.success_url,
      cancel_url: body.cancel_url ?? null,
      line_items: lineItems,
      subscription_data: body.subscription_data ?? {},
      created: now(),
    };
    session.url = `${base}/checkout/${session.id}`;
    checkoutSessions.set(session.id as string, session);
    return json(res, 200, visible(session));
  };

  const getCheckoutSession: StripeRoute = (_req, res, _url, params) => {
    const session = checkoutSessions.get(params.session!);
    return session ? json(res, 200, visible(session)) : noSuch(res, 'checkout.session', params.session!);
  };

  /** `POST /v1/checkout/sessions/{id}/expire`: only an open session expires. */
  const expireCheckoutSession: StripeRoute = (_req, res, _url, params) => {
    const session = checkoutSessions.get(params.session!);
    if (!session) return noSuch(res, 'checkout.session', params.session!);
    if (session.status !== 'open') {
      return stripeError(
        res,
        400,
        `Only Checkout Sessions with a status of \`open\` can be expired. This session has a status of \`${session.status}\`.`,
      );
    }
    Object.assign(session, { status: 'expired' });
    return json(res, 200, visible(session));
  };

  /** `GET /v1/subscriptions`: a customer's (or every) subscription; canceled ones only with `status=canceled|all`. */
  const listSubscriptions: StripeRoute = (_req, res, url) => {
    const query = url.searchParams;
    const status = query.get('status');
    const listed = [...subscriptions.values()].filter(
      (subscription) =>
        (!query.get('customer') || subscription.customer === query.get('customer')) &&
        (status === 'all' || (status ? subscription.status === status : subscription.status !== 'canceled')),
    );
    return json(res, 200, { object: 'list', url: '/v1/subscriptions', has_more: false, data: listed });
  };

  const getSubscription: StripeRoute = (_req, res, _url, params) => {
    const subscription = subscriptions.get(params.subscription!);
    return subscription ? json(res, 200, subscription) : noSuch(res, 'subscription', params.subscription!);
  };

  /** `POST /v1/billing_portal/sessions`: a portal session for a known customer. */
  const createPortalSession: StripeRoute = (_req, res, _url, _params, body) => {
    if (!body.customer) return missing(res, 'customer');
    if (!customers.has(body.customer as string)) return noSuch(res, 'customer', body.customer as string);
    const session = { id: id('bps'), object: 'billing_portal.session', customer: body.customer, return_url: body.return_url ?? null };
    portalSessions.set(session.id, session);
    return json(res, 200, { ...session, url: `${base}/portal/${session.id}` });
  };

  /** The API a secret key reaches, after the checks in `api`. */
  const secretKeyRoutes = routeTable<Json>(
    [
      ['POST /v1/customers', createCustomer],
      ['GET /v1/prices/:price', getPrice],
      ['POST /v1/checkout/sessions', createCheckoutSession],
      ['GET /v1/checkout/sessions/:session', getCheckoutSession],
      ['POST /v1/checkout/sessions/:session/expire', expireCheckoutSession],
      ['GET /v1/subscriptions', listSubscriptions],
      ['GET /v1/subscriptions/:subscription', getSubscription],
      ['POST /v1/billing_portal/sessions', createPortalSession],
    ],
    (req, res, url) => stripeError(res, 404, `Unrecognized request URL (${req.method}: ${url.pathname}).`),
  );

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

  async function api(req: IncomingMessage, res: ServerResponse, url: URL) {
    const key = req.headers['idempotency-key'];
    if (req.method === 'POST' && typeof key === 'string') {
      const seen = idempotent.get(key);
      if (seen) {
        res.writeHead(seen.status, { 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true' });
        return res.end(seen.body);
      }
      const end = res.end.bind(res);
      res.end = ((chunk?: unknown) => {
        if (typeof chunk === 'string') idempotent.set(key, { status: res.statusCode, body: chunk });
        return end(chunk as string);
      }) as typeof res.end;
    }
    const auth = req.headers.authorization ?? '';
    const token = auth.replace(/^Bearer /, '');
    if (rolledKeys.has(token)) {
      return json(res, 401, {
        error: { type: 'invalid_request_error', code: 'api_key_expired', message: `Expired API Key provided: ${token.slice(0, 12)}***` },
      });
    }
    // A customer's restricted key (payments as a conversion source): it reads charges if allowed.
    const restricted = RESTRICTED_KEYS[token];
    if (restricted && req.method === 'GET') {
      const version = req.headers['stripe-version'];
      chargeReads.push({ path: url.pathname, stripeVersion: typeof version === 'string' ? version : null });
      const chargeId = url.pathname === '/v1/charges' ? null : CHARGE_PATH.exec(url.pathname)?.groups?.charge;
      if (chargeId !== undefined) return readCharges(res, url, auth, restricted, chargeId);
    }
    if (auth !== `Bearer ${secretKey}`) {
      const shown = auth.replace(/^Bearer /, '').slice(0, 12);
      return stripeError(res, 401, `Invalid API Key provided: ${shown}***`, undefined, 'invalid_request_error');
    }
    const body = req.method === 'POST' ? parseStripeForm(await readBody(req)) : {};
    return secretKeyRoutes(req, res, url, body);
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

  /** The portal: the plan of each live subscription, a switch to every other plan, and cancel. */
  function portalPage(portal: Json, live: Json[]): string {
    const action = (what: string) => `/portal/${escapeHtml(portal.id)}/${what}`;
    const plans = live
      .map((subscription) => {
        const current = (((subscription.items as Json).data as Json[])[0]!.price ?? {}) as Json;
        const switches = [...prices.values()]
          .filter((price) => price.id !== current.id)
          .map(
            (price) =>
              `<form method="post" action="${action('plan')}"><input type="hidden" name="price" value="${escapeHtml(price.id)}"><button type="submit">Switch to ${escapeHtml(price.nickname)}</button></form>`,
          )
          .join('');
        return `<p>Plan: ${escapeHtml(current.nickname)} — ${escapeHtml(subscription.status)}</p>${switches}`;
      })
      .join('');
    const body = live.length
      ? `${plans}<form method="post" action="${action('cancel')}"><button type="submit">Cancel subscription</button></form>`
      : '<p class="muted">No active subscription.</p>';
    const back = portal.return_url ? `<p><a href="${escapeHtml(portal.return_url)}">Return to SignalBridge</a></p>` : '';
    return `<h1>Billing</h1>${body}${back}`;
  }

  /** A checkout session that can still be paid. */
  const openCheckout = (sessionId: string) => {
    const session = checkoutSessions.get(sessionId);
    return session && session.status === 'open' ? session : null;
  };
  const checkoutGone = (res: ServerResponse) => html(res, '<h1>This checkout session is no longer available.</h1>');
  const priceOf = (session: Json) => prices.get((session.line_items as Json[])[0]!.price as string)!;

  /** `/checkout/{id}`: the hosted checkout page of an open session. */
  const checkoutPage: RouteHandler = (_req, res, _url, params) => {
    const session = openCheckout(params.session!);
    if (!session) return checkoutGone(res);
    const price = priceOf(session);
    return html(
      res,
      `<h1>Subscribe to ${escapeHtml(price.nickname)}</h1>
<p>${(price.unit_amount / 100).toFixed(2)} ${price.currency.toUpperCase()} per month</p>
<form method="post" action="/checkout/${escapeHtml(session.id)}/pay"><button type="submit">Pay</button></form>
${session.cancel_url ? `<p><a href="${escapeHtml(session.cancel_url)}">Cancel and go back</a></p>` : ''}`,
    );
  };

  /** `POST /checkout/{id}/pay`: the subscription starts, its webhooks are sent, and the buyer goes to the success URL. */
  const payCheckout: RouteHandler = async (req, res, _url, params) => {
    const session = openCheckout(params.session!);
    if (!session) return checkoutGone(res);
    if (req.method !== 'POST') return stripeError(res, 405, 'Use POST');
    const subscription = subscriptionFor(session);
    Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: subscription.id });
    await sendWebhook('customer.subscription.created', subscription);
    await sendWebhook('checkout.session.completed', visible(session));
    res.writeHead(303, { Location: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', String(session.id)) });
    return res.end();
  };

  /** `/portal/{id}`: the portal page; `POST /portal/{id}/plan|cancel` changes or cancels the customer's live subscriptions. */
  const portalRoute: RouteHandler = async (req, res, _url, params) => {
    const portal = portalSessions.get(params.session!);
    if (!portal) return html(res, '<h1>This portal session is no longer available.</h1>');
    const live = [...subscriptions.values()].filter((s) => s.customer === portal.customer && s.status !== 'canceled');
    if (!params.action) return html(res, portalPage(portal, live));
    if (req.method !== 'POST') return stripeError(res, 405, 'Use POST');
    if (params.action === 'plan') {
      // Stripe's portal changes the plan of the subscription in place: still one subscription.
      const price = prices.get(new URLSearchParams(await readBody(req)).get('price') ?? '');
      if (!price) return stripeError(res, 400, 'Choose a plan.', 'price');
      for (const subscription of live) {
        const item = ((subscription.items as Json).data as Json[])[0]!;
        item.price = { ...price, object: 'price' };
        await sendWebhook('customer.subscription.updated', subscription);
      }
    } else {
      for (const subscription of live) {
        Object.assign(subscription, { status: 'canceled', canceled_at: now() });
        await sendWebhook('customer.subscription.deleted', subscription);
      }
    }
    res.writeHead(303, { Location: String(portal.return_url ?? '/') });
    return res.end();
  };

  /** The pages a browser sees: the index, checkout and the billing portal. Any method reaches them, as before. */
  const hostedPages = routeTable(
    [
      ['* /', (_req, res, url) => indexPage(res, { made: url.searchParams.get('charge') ?? undefined })],
      ['* /__fake/charges', makeCharge],
      ['* /checkout/:session', checkoutPage],
      ['* /checkout/:session/pay', payCheckout],
      ['* /portal/:session', portalRoute],
      ['* /portal/:session/:action(cancel|plan)', portalRoute],
    ],
    (_req, res) => html(res, '<h1>Not found</h1>'),
  );

  const served = await serve(
    'fake stripe',
    (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      return url.pathname.startsWith('/v1/') ? api(req, res, url) : hostedPages(req, res, url);
    },
    { port: options.port, onError: (res) => stripeError(res, 500, 'Internal error in the fake', undefined, 'api_error') },
  );
  base = served.url;
  return {
    url: base,
    secretKey,
    webhookSecret,
    customers,
    subscriptions,
    checkoutSessions,
    charges,
    createCharge,
    rollKey: (key) => void rolledKeys.add(key),
    restoreKey: (key) => void rolledKeys.delete(key),
    delayCharges: (ms) => {
      chargesDelayMs = ms;
    },
    chargeReads,
    sign,
    close: served.close,
  };
}

/** The environment that points the app at this fake. */
export function stripeEnv(fake: FakeStripe): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: fake.secretKey,
    STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
    STRIPE_API_URL: fake.url,
    STRIPE_PRICE_STARTER: 'price_starter_monthly',
    STRIPE_PRICE_GROWTH: 'price_growth_monthly',
    STRIPE_PRICE_SCALE: 'price_scale_monthly',
  };
}
