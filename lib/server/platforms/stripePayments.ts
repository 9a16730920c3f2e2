import { stripePaymentsConfig } from '@/lib/server/platforms/config';
import { PlatformError, requestJson } from '@/lib/server/platforms/http';

/**
 * Checks a customer's restricted Stripe key before it is saved: it must be valid and able to read
 * charges, which is all that payments as a conversion source need.
 */
export async function checkRestrictedKey(apiKey: string): Promise<void> {
  const { status, body } = await requestJson('stripe', `${stripePaymentsConfig().apiUrl}/v1/charges?limit=1`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  if (status === 200) return;
  if (status === 401) throw new PlatformError('stripe', 400, 'Stripe did not accept this key. Check that it was copied whole and is not rolled.');
  if (status === 403) throw new PlatformError('stripe', 400, 'This key cannot read charges. In Stripe, give the restricted key “Charges: Read” access.');
  console.error('[platforms] stripe key check failed', { status, type: (body.error as { type?: string } | undefined)?.type });
  throw new PlatformError('stripe', 502, 'Stripe could not be reached. Try again in a minute.');
}
