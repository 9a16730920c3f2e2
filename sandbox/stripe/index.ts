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
 * is made with `createCharge()`, `POST /__fake/charges` or the form on the fake's index page
 * (sandbox/stripe/charges.ts).
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { routeTable, type RouteHandler } from '@/sandbox/routes';
import { escapeHtml, readBody, serve } from '@/sandbox/server';
import { createChargeAccount, type NewCharge } from '@/sandbox/stripe/charges';
import { html, id, json, missing, noSuch, now, parseStripeForm, stripeError, type Json } from '@/sandbox/stripe/wire';

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

export const DEFAULT_FAKE_PRICES = [
  { id: 'price_starter_monthly', unit_amount: 4900, currency: 'usd', nickname: 'Starter' },
  { id: 'price_growth_monthly', unit_amount: 14900, currency: 'usd', nickname: 'Growth' },
  { id: 'price_scale_monthly', unit_amount: 39900, currency: 'usd', nickname: 'Scale' },
];

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
  const rolledKeys = new Set<string>();
  const account = createChargeAccount();
  let base = '';

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
    const read = account.restrictedRead(req, res, url, auth, token);
    if (read) return read;
    if (auth !== `Bearer ${secretKey}`) {
      const shown = auth.replace(/^Bearer /, '').slice(0, 12);
      return stripeError(res, 401, `Invalid API Key provided: ${shown}***`, undefined, 'invalid_request_error');
    }
    const body = req.method === 'POST' ? parseStripeForm(await readBody(req)) : {};
    return secretKeyRoutes(req, res, url, body);
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
      ['* /', (_req, res, url) => account.indexPage(res, { made: url.searchParams.get('charge') ?? undefined })],
      ['* /__fake/charges', account.makeCharge],
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
    charges: account.charges,
    createCharge: account.createCharge,
    rollKey: (key) => void rolledKeys.add(key),
    restoreKey: (key) => void rolledKeys.delete(key),
    delayCharges: account.delay,
    chargeReads: account.chargeReads,
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
