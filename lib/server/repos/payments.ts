import { FieldValue, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { Payment } from '@/lib/shared/integrations/apps';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { assertUnused, credentials, iso, notFound, updateExisting, type SealedCredential } from '@/lib/server/repos/integrations';

/** Stripe accounts connected as conversion sources, by a restricted key checked on save (services/payments.ts). */
const payments = (orgId: string) => adminDb().collection('organizations').doc(orgId).collection('payments');

function toPayment(snap: DocumentSnapshot): Payment {
  return {
    id: snap.id,
    name: snap.get('name'),
    provider: 'stripe',
    livemode: Boolean(snap.get('livemode')),
    keyPrefix: snap.get('key_prefix'),
    connectedAt: iso(snap.get('connected_at')),
    ...(snap.get('default_country') ? { defaultCountry: snap.get('default_country') as string } : {}),
  };
}

export async function listPayments(orgId: string): Promise<Payment[]> {
  const snapshot = await payments(orgId).orderBy('connected_at', 'desc').limit(100).get();
  return snapshot.docs.map(toPayment);
}

export async function getPayment(orgId: string, id: string): Promise<Payment> {
  const snap = await payments(orgId).doc(id).get();
  if (!snap.exists) throw notFound('Payment account');
  return toPayment(snap);
}

/** Writes a payment account and its sealed key together; the browser only ever sees the key's first characters. */
export async function createPayment(
  orgId: string,
  uid: string,
  input: {
    name: string;
    livemode: boolean;
    keyPrefix: string;
    credentialId: string;
    sealedCredential: SealedCredential;
    defaultCountry: string | null;
  },
): Promise<Payment> {
  const ref = payments(orgId).doc();
  const credentialRef = credentials(orgId).doc(input.credentialId);
  const batch = adminDb().batch();
  batch.set(credentialRef, { ...input.sealedCredential, owner: `payments/${ref.id}` });
  batch.set(ref, {
    name: input.name,
    provider: 'stripe',
    livemode: input.livemode,
    key_prefix: input.keyPrefix,
    default_country: input.defaultCountry,
    credential_id: credentialRef.id,
    connected_by: uid,
    connected_at: FieldValue.serverTimestamp(),
  });
  await batch.commit();
  return toPayment(await ref.get());
}

/** Renames a payment account or sets its default country (null: none). */
export async function updatePayment(
  orgId: string,
  id: string,
  fields: { name?: string; defaultCountry?: string | null },
): Promise<Payment> {
  const update = {
    ...(fields.name !== undefined ? { name: fields.name } : {}),
    ...(fields.defaultCountry !== undefined ? { default_country: fields.defaultCountry } : {}),
  };
  if (Object.keys(update).length === 0) return getPayment(orgId, id);
  await updateExisting(payments(orgId).doc(id), update, 'Payment account');
  return getPayment(orgId, id);
}

export async function deletePayment(orgId: string, id: string): Promise<void> {
  const snap = await payments(orgId).doc(id).get();
  if (!snap.exists) throw notFound('Payment account');
  await assertUnused(orgId, 'source_id', id, 'Payment account');
  const batch = adminDb().batch();
  batch.delete(payments(orgId).doc(id));
  batch.delete(credentials(orgId).doc(snap.get('credential_id')));
  await batch.commit();
}
