import { API_VERSIONS } from '@/lib/server/connectors/versions';

/** Stripe accounts connected as payment sources (not our own billing account). */
export const stripeConfig = () => ({
  apiUrl: process.env.STRIPE_PAYMENTS_API_URL || process.env.STRIPE_API_URL || 'https://api.stripe.com',
});

/**
 * The headers of a read with a customer's restricted key: the pinned Stripe-Version, so every account's
 * charges come in the shape we read (not each account's default version).
 */
export const stripeHeaders = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}`, 'Stripe-Version': API_VERSIONS.stripe.version });
