import type { PinnedVersion } from '@/lib/server/connectors/pinnedVersion';

/** The version we pin (tests/unit/apiVersions.test.ts warns 60 days before its sunset). */
export const STRIPE_VERSION = {
  api: "Stripe API (a customer's charges: payments as a conversion source)",
  // The version the stripe package pins (node_modules/stripe/cjs/apiVersion.js; our billing client uses it),
  // sent as Stripe-Version: without it each customer's account default decides a charge's shape
  // (https://docs.stripe.com/api-versions: the header, else the SDK's pin, else the account's default).
  version: '2026-10-28.endive',
  // Stripe publishes no end for an API version.
  sunset: null,
  source: 'https://docs.stripe.com/api-versions',
} as const satisfies PinnedVersion;
