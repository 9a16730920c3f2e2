import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import type { IntegrationKind, OAuthPlatform } from '@/lib/shared/integrations/platforms';

/** A consent flow under way: who started it, for what, and where the provider returns. */
export interface OAuthFlow {
  orgId: string;
  uid: string;
  platform: OAuthPlatform;
  kind: IntegrationKind;
  /** The source or destination whose credentials are replaced (reauth); null creates a new one. */
  objectId: string | null;
  redirectUri: string;
}

/** Consent flows under way (oauth/state.ts signs their nonces): one document per nonce, spent on first sight. */
const states = () => adminDb().collection('oauth_states');

export async function saveState(nonce: string, flow: OAuthFlow, expiresAt: number): Promise<void> {
  await states()
    .doc(nonce)
    .set({
      org_id: flow.orgId,
      uid: flow.uid,
      platform: flow.platform,
      kind: flow.kind,
      object_id: flow.objectId,
      redirect_uri: flow.redirectUri,
      created_at: FieldValue.serverTimestamp(),
      expires_at: Timestamp.fromMillis(expiresAt),
    });
}

/** Deletes the state and answers its flow when it is live and was started by this user in this organization; null otherwise. */
export async function spendState(nonce: string, expected: { orgId: string; uid: string }): Promise<OAuthFlow | null> {
  const ref = states().doc(nonce);
  return adminDb().runTransaction(async (transaction) => {
    const snapshot = await transaction.get(ref);
    const data = snapshot.data();
    if (!data) return null;
    // Spent on first sight, whatever happens next: a state never works twice.
    transaction.delete(ref);
    const expired = (data.expires_at as Timestamp).toMillis() < Date.now();
    if (expired || data.org_id !== expected.orgId || data.uid !== expected.uid) return null;
    return {
      orgId: data.org_id,
      uid: data.uid,
      platform: data.platform,
      kind: data.kind,
      objectId: data.object_id ?? null,
      redirectUri: data.redirect_uri,
    } satisfies OAuthFlow;
  });
}
