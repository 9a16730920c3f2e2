/** Stripe accounts connected as payment sources (not our own billing account). */
export const stripeConfig = () => ({
  apiUrl: process.env.STRIPE_PAYMENTS_API_URL || process.env.STRIPE_API_URL || 'https://api.stripe.com',
});
