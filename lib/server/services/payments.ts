import type { Payment } from '@/lib/shared/integrations/apps';
import { connectWithKey, sealCredential } from '@/lib/server/credentials';
import { newCredentialId } from '@/lib/server/repos/integrations';
import * as repo from '@/lib/server/repos/payments';

/** Connects a Stripe account as a payments source: the restricted key is checked with Stripe, then sealed. */
export async function createPayment(
  orgId: string,
  uid: string,
  input: { name: string; apiKey: string; defaultCountry?: string | null },
): Promise<Payment> {
  const { credential } = await connectWithKey('stripe', { apiKey: input.apiKey });
  const credentialId = newCredentialId(orgId);
  return repo.createPayment(orgId, uid, {
    name: input.name,
    livemode: input.apiKey.startsWith('rk_live_'),
    keyPrefix: `${input.apiKey.slice(0, 12)}…`,
    defaultCountry: input.defaultCountry ?? null,
    credentialId,
    sealedCredential: sealCredential(orgId, credentialId, credential),
  });
}
