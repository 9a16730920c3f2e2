import { stripeConfig, stripeHeaders } from '@/lib/server/connectors/stripe/config';
import { requestJson } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Connector } from '@/lib/server/connectors/types';
import { log } from '@/lib/server/log';

/** A customer's Stripe account as a payments source (not our own billing account): a restricted key. */
export interface StripeCredential {
  type: 'stripe';
  apiKey: string;
}

/**
 * Checks a customer's restricted Stripe key before it is saved: it must be valid and able to read
 * charges, which is all that payments as a conversion source need.
 */
async function checkRestrictedKey(apiKey: string): Promise<void> {
  const { status, body } = await requestJson('stripe', `${stripeConfig().apiUrl}/v1/charges?limit=1`, {
    headers: stripeHeaders(apiKey),
  });
  if (status === 200) return;
  if (status === 401)
    throw new PlatformError('stripe', 'invalid', 'Stripe did not accept this key. Check that it was copied whole and is not rolled.');
  if (status === 403)
    throw new PlatformError(
      'stripe',
      'forbidden',
      'This key cannot read charges. In Stripe, give the restricted key “Charges: Read” access.',
    );
  log.warn(
    { component: 'platforms', platform: 'stripe', status, platformError: (body.error as { type?: string } | undefined)?.type },
    'Stripe key check failed',
  );
  throw new PlatformError('stripe', 'retryable', 'Stripe could not be reached. Try again in a minute.');
}

export const stripe: Connector<StripeCredential> = {
  id: 'stripe',
  auth: {
    key: {
      field: 'apiKey',
      async connect({ apiKey = '' }) {
        await checkRestrictedKey(apiKey);
        return { credential: { type: 'stripe', apiKey }, accountName: `${apiKey.slice(0, 12)}…` };
      },
    },
  },
  openSession: async (credential) => ({ accessToken: credential.apiKey, rotated: null }),
  listAccounts: async () => [],
  listTargets: async () => [],
};
