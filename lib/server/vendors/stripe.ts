import Stripe from 'stripe';

let cached: { key: string; url: string; client: Stripe } | undefined;

/** The Stripe SDK; STRIPE_API_URL points it at the local fake (host, port, protocol) in dev and tests. */
export function stripe(): Stripe {
  const key = process.env.STRIPE_SECRET_KEY;
  if (!key) throw new Error('STRIPE_SECRET_KEY is not set');
  const url = process.env.STRIPE_API_URL ?? '';
  if (cached?.key === key && cached.url === url) return cached.client;
  const target = url ? new URL(url) : null;
  const client = new Stripe(key, {
    ...(target
      ? {
          host: target.hostname,
          port: Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
          protocol: target.protocol.replace(':', '') as 'http' | 'https',
        }
      : {}),
    maxNetworkRetries: 1,
    telemetry: false,
  });
  cached = { key, url, client };
  return client;
}

/** The configured Stripe price id of each plan. */
export function priceIdOf(plan: 'starter' | 'growth' | 'scale'): string | undefined {
  return { starter: process.env.STRIPE_PRICE_STARTER, growth: process.env.STRIPE_PRICE_GROWTH, scale: process.env.STRIPE_PRICE_SCALE }[
    plan
  ];
}
