import { randomUUID } from 'node:crypto';
import { FieldValue, Timestamp, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { Payment } from '@/lib/shared/integrations/apps';
import { adminDb } from '@/lib/server/firebaseAdmin';
import {
  assertUnused,
  credentials,
  iso,
  notFound,
  storedCredential,
  updateExisting,
  type SealedCredential,
} from '@/lib/server/repos/integrations';

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
  batch.set(credentialRef, storedCredential(input.sealedCredential, `payments/${ref.id}`));
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

/**
 * The payments poller's state on the account's document (lib/server/delivery/payments.ts): `poll_lease_*`
 * (one worker polls an account at a time), `poll_cursor` (how far it was read), `poll_error` (why the last
 * poll failed).
 */
export interface PaymentsCursor {
  /** Unix seconds: charges before it are done. */
  created: number;
  /** The charges created in exactly that second that are done. */
  ids: string[];
}

function parseCursor(value: unknown): PaymentsCursor | null {
  const cursor = value as Partial<PaymentsCursor> | undefined;
  return cursor && typeof cursor.created === 'number' && Array.isArray(cursor.ids)
    ? { created: cursor.created, ids: cursor.ids.map(String) }
    : null;
}

/** A held poll lease on a payment account, with what the poll needs of the account. */
export interface PaymentPollClaim {
  token: string;
  credentialId: string;
  cursor: PaymentsCursor | null;
  /** The code of the error the previous poll recorded, if it failed. */
  lastError: string | null;
  /** The account's default country, for billing phones written without one. */
  defaultCountry?: string;
}

/** Takes the account's poll lease when nobody holds a live one; null when it is taken or gone. */
export async function claimPaymentPoll(orgId: string, paymentId: string, leaseMs: number): Promise<PaymentPollClaim | null> {
  const ref = payments(orgId).doc(paymentId);
  const token = randomUUID();
  return adminDb().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists) return null;
    const until = snap.get('poll_lease_until') as Timestamp | null | undefined;
    if (until && until.toMillis() > Date.now()) return null;
    tx.update(ref, { poll_lease_until: Timestamp.fromMillis(Date.now() + leaseMs), poll_lease_token: token });
    return {
      token,
      credentialId: snap.get('credential_id') as string,
      cursor: parseCursor(snap.get('poll_cursor')),
      lastError: (snap.get('poll_error.code') as string | undefined) ?? null,
      defaultCountry: (snap.get('default_country') as string | null | undefined) ?? undefined,
    };
  });
}

/**
 * Writes the poll's outcome (the cursor it reached, or why it failed) and frees the lease, if this claim
 * still holds it (else writes nothing: a worker whose lease ran out never moves the cursor).
 */
export async function finishPaymentPoll(
  orgId: string,
  paymentId: string,
  token: string,
  outcome: { cursor: PaymentsCursor } | { error: { code: string; message: string } },
): Promise<boolean> {
  const ref = payments(orgId).doc(paymentId);
  const changes =
    'cursor' in outcome
      ? { poll_cursor: outcome.cursor, poll_error: FieldValue.delete(), polled_at: FieldValue.serverTimestamp() }
      : { poll_error: { ...outcome.error, at: FieldValue.serverTimestamp() } };
  return adminDb().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists || snap.get('poll_lease_token') !== token) return false;
    tx.update(ref, { ...changes, poll_lease_until: null, poll_lease_token: null });
    return true;
  });
}
