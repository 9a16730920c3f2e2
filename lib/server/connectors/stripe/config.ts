import { STRIPE_VERSION } from '@/lib/server/connectors/stripe/version';
import { link, type Variable } from '@/lib/server/envVariable';

/** Stripe accounts connected as payment sources (not our own billing account). */
export const stripeConfig = () => ({
  apiUrl: process.env.STRIPE_PAYMENTS_API_URL || process.env.STRIPE_API_URL || 'https://api.stripe.com',
});

/**
 * The headers of a read with a customer's restricted key: the pinned Stripe-Version, so every account's
 * charges come in the shape we read (not each account's default version).
 */
export const stripeHeaders = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}`, 'Stripe-Version': STRIPE_VERSION.version });

/** Its configuration variables (lib/server/env.ts lists every folder's; .env.example documents them): where a customer's Stripe account is read (payments as a conversion source; our billing's STRIPE_API_URL when unset). */
export const STRIPE_PAYMENTS_VARIABLES = {
  STRIPE_PAYMENTS_API_URL: link,
} as const satisfies Record<string, Variable>;
