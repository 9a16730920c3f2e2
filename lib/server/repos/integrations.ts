import { FieldValue, Timestamp, type DocumentReference, type DocumentSnapshot, type UpdateData } from 'firebase-admin/firestore';
import { ANALYTICS_EVENTS } from '@/lib/analytics/events';
import { adAccountLimitMessage, countAdAccounts, entitlementsOf, includesAdAccounts } from '@/lib/billing/entitlements';
import {
  PLATFORM_LABELS,
  type AdAccount,
  type Integration,
  type IntegrationKind,
  type Platform,
  type Usage,
} from '@/lib/integrations/platforms';
import { trackEvent } from '@/lib/server/analytics';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { ApiError } from '@/lib/server/http/errors';
import { listAccounts, openSession, type Credential, type PlatformSession } from '@/lib/server/platforms';
import { PlatformError } from '@/lib/server/platforms/http';
import { open, seal } from '@/lib/server/secretBox';

export const COLLECTION_OF: Record<IntegrationKind, 'sources' | 'destinations'> = { source: 'sources', destination: 'destinations' };
const LABEL_OF: Record<IntegrationKind, string> = { source: 'Source', destination: 'Destination' };

const organization = (orgId: string) => adminDb().collection('organizations').doc(orgId);
export const integrations = (orgId: string, kind: IntegrationKind) => organization(orgId).collection(COLLECTION_OF[kind]);
export const credentials = (orgId: string) => organization(orgId).collection('credentials');

export const iso = (value: unknown) => (value instanceof Timestamp ? value.toDate().toISOString() : new Date(0).toISOString());

export const notFound = (label: string) => new ApiError(404, 'not_found', `${label} not found.`);

/** Updates a document that must exist: a missing one is the caller's 404 (gRPC NOT_FOUND), not a 500. */
export async function updateExisting(ref: DocumentReference, data: UpdateData<FirebaseFirestore.DocumentData>, label: string): Promise<void> {
  try {
    await ref.update(data);
  } catch (error) {
    if ((error as { code?: unknown }).code === 5) throw notFound(label);
    throw error;
  }
}

export function toIntegration(kind: IntegrationKind, snap: DocumentSnapshot): Integration {
  return {
    id: snap.id,
    kind,
    platform: snap.get('platform'),
    name: snap.get('name'),
    accountName: snap.get('account_name') ?? '',
    status: snap.get('status') ?? 'active',
    connectedAt: iso(snap.get('connected_at')),
    connectedBy: snap.get('connected_by') ?? null,
    accounts: snap.get('accounts') ?? [],
    settings: snap.get('settings') ?? {},
  };
}

export async function listIntegrations(orgId: string, kind: IntegrationKind): Promise<Integration[]> {
  const snapshot = await integrations(orgId, kind).orderBy('created_at', 'desc').limit(500).get();
  return snapshot.docs.map((doc) => toIntegration(kind, doc));
}

/** The object as the browser may see it, and (server only) where its credential is. */
async function loadIntegration(orgId: string, kind: IntegrationKind, id: string): Promise<{ integration: Integration; credentialId: string }> {
  const snap = await integrations(orgId, kind).doc(id).get();
  if (!snap.exists) throw notFound(LABEL_OF[kind]);
  return { integration: toIntegration(kind, snap), credentialId: snap.get('credential_id') };
}

export async function getIntegration(orgId: string, kind: IntegrationKind, id: string): Promise<Integration> {
  return (await loadIntegration(orgId, kind, id)).integration;
}

/** Seals a credential with the document path as associated data: it opens nowhere else. */
export function sealCredential(orgId: string, credentialId: string, credential: Credential) {
  return { sealed: seal(JSON.stringify(credential), `${orgId}/${credentialId}`), type: credential.type, updated_at: FieldValue.serverTimestamp() };
}

export async function readCredential(orgId: string, credentialId: string): Promise<Credential> {
  const snap = await credentials(orgId).doc(credentialId).get();
  if (!snap.exists) throw new ApiError(409, 'needs_reauth', 'The login behind this connection is missing. Reconnect it.');
  return JSON.parse(open(snap.get('sealed'), `${orgId}/${credentialId}`)) as Credential;
}

interface NewIntegration {
  kind: IntegrationKind;
  platform: Platform;
  name?: string;
  accountName: string;
  credential: Credential;
  accounts?: AdAccount[];
  settings?: Record<string, string>;
  uid: string;
}

export async function createIntegration(orgId: string, input: NewIntegration): Promise<Integration> {
  const db = adminDb();
  const ref = integrations(orgId, input.kind).doc();
  const credentialRef = credentials(orgId).doc();
  const batch = db.batch();
  batch.set(credentialRef, { ...sealCredential(orgId, credentialRef.id, input.credential), owner: `${COLLECTION_OF[input.kind]}/${ref.id}` });
  batch.set(ref, {
    platform: input.platform,
    name: input.name ?? `${PLATFORM_LABELS[input.platform]} · ${input.accountName}`,
    account_name: input.accountName,
    status: 'active',
    credential_id: credentialRef.id,
    accounts: input.accounts ?? [],
    settings: input.settings ?? {},
    connected_by: input.uid,
    connected_at: FieldValue.serverTimestamp(),
    created_at: FieldValue.serverTimestamp(),
  });
  await batch.commit();
  await trackEvent(input.uid, input.kind === 'source' ? ANALYTICS_EVENTS.sourceCreated : ANALYTICS_EVENTS.destinationCreated, {
    org_id: orgId,
    platform: input.platform,
    [`${input.kind}_id`]: ref.id,
  });
  return toIntegration(input.kind, await ref.get());
}

/** Reauth: the same object with a new login; it works again. */
export async function replaceCredential(orgId: string, kind: IntegrationKind, id: string, credential: Credential, accountName: string, uid: string) {
  const { integration: current, credentialId } = await loadIntegration(orgId, kind, id);
  const batch = adminDb().batch();
  batch.set(credentials(orgId).doc(credentialId), {
    ...sealCredential(orgId, credentialId, credential),
    owner: `${COLLECTION_OF[kind]}/${id}`,
  });
  batch.update(integrations(orgId, kind).doc(id), {
    status: 'active',
    account_name: accountName,
    connected_by: uid,
    connected_at: FieldValue.serverTimestamp(),
    reauth_reason: FieldValue.delete(),
  });
  await batch.commit();
  await trackEvent(uid, kind === 'source' ? ANALYTICS_EVENTS.sourceReauthenticated : ANALYTICS_EVENTS.destinationReauthenticated, {
    org_id: orgId,
    platform: current.platform,
    [`${kind}_id`]: id,
  });
}

const needsReauth = (platform: Platform) =>
  new ApiError(
    409,
    'needs_reauth',
    `${PLATFORM_LABELS[platform]} has disconnected SignalBridge from this account (the login expired or access was removed). Reconnect to keep your data flowing.`,
  );

/**
 * Runs `work` with a live access token. A credential the platform has killed marks the object
 * 'needs reauth' (the UI offers a one-click reconnect) and answers 409 needs_reauth.
 */
export async function withSession<T>(orgId: string, kind: IntegrationKind, id: string, work: (session: PlatformSession, integration: Integration) => Promise<T>): Promise<T> {
  const { integration, credentialId } = await loadIntegration(orgId, kind, id);
  if (integration.status === 'needs_reauth') throw needsReauth(integration.platform);
  try {
    const credential = await readCredential(orgId, credentialId);
    const session = await openSession(credential);
    if (session.rotated) await credentials(orgId).doc(credentialId).update(sealCredential(orgId, credentialId, session.rotated));
    return await work(session, integration);
  } catch (error) {
    if (error instanceof PlatformError && error.reauth) {
      await integrations(orgId, kind).doc(id).update({ status: 'needs_reauth', reauth_reason: error.message, reauth_at: FieldValue.serverTimestamp() });
      throw needsReauth(integration.platform);
    }
    if (error instanceof PlatformError) throw new ApiError(error.status >= 500 ? 502 : 400, 'platform_error', error.message);
    throw error;
  }
}

const named = (snap: DocumentSnapshot) => ({ id: snap.id, name: String(snap.get('name') ?? snap.id) });

/** The field that connections, conversions and apps refer to an object by. */
export type UsageField = 'source_id' | 'destination_id' | 'app_id';
export const usageFieldOf = (kind: IntegrationKind): UsageField => (kind === 'source' ? 'source_id' : 'destination_id');

/** What still uses an object (a source, destination, payment account or app). */
export async function usageOf(orgId: string, field: UsageField, id: string): Promise<Usage> {
  const org = organization(orgId);
  const [connections, conversions, apps] = await Promise.all([
    org.collection('connections').where(field, '==', id).limit(20).get(),
    org.collection('conversions').where(field, '==', id).limit(20).get(),
    field === 'destination_id' ? org.collection('apps').where('destination_ids', 'array-contains', id).limit(20).get() : null,
  ]);
  return { connections: connections.docs.map(named), conversions: conversions.docs.map(named), apps: apps?.docs.map(named) ?? [] };
}

/** Refuses (409 in_use) to delete an object something still uses, saying what. */
export async function assertUnused(orgId: string, field: UsageField, id: string, label: string): Promise<void> {
  const usage = await usageOf(orgId, field, id);
  if (usage.connections.length + usage.conversions.length + usage.apps.length > 0) throw new ApiError(409, 'in_use', describeUsage(label, usage));
}

function describeUsage(label: string, usage: Usage): string {
  const parts = [
    usage.connections.length && `${usage.connections.length} connection${usage.connections.length === 1 ? '' : 's'}`,
    usage.conversions.length && `${usage.conversions.length} conversion${usage.conversions.length === 1 ? '' : 's'}`,
    usage.apps.length && `${usage.apps.length} app${usage.apps.length === 1 ? '' : 's'}`,
  ].filter(Boolean);
  return `This ${label.toLowerCase()} is still used by ${parts.join(' and ')}. Remove it from them first.`;
}

export async function deleteIntegration(orgId: string, kind: IntegrationKind, id: string, uid: string): Promise<void> {
  const { integration, credentialId } = await loadIntegration(orgId, kind, id);
  await assertUnused(orgId, usageFieldOf(kind), id, LABEL_OF[kind]);
  const batch = adminDb().batch();
  batch.delete(integrations(orgId, kind).doc(id));
  batch.delete(credentials(orgId).doc(credentialId));
  await batch.commit();
  // The grant is not revoked at the platform: Google and Meta revoke a person's whole grant to our
  // app, which would also cut off every other source or destination that person connected.
  await trackEvent(uid, kind === 'source' ? ANALYTICS_EVENTS.sourceDeleted : ANALYTICS_EVENTS.destinationDeleted, {
    org_id: orgId,
    platform: integration.platform,
    [`${kind}_id`]: id,
  });
}

/**
 * Renames an object and/or keeps the accounts picked by id — only among those its login can reach
 * right now (ids from the browser are never trusted), never a manager account, and for a source
 * never past the ad accounts the organization's plan includes.
 */
export async function updateIntegration(orgId: string, kind: IntegrationKind, id: string, changes: { name?: string; accountIds?: string[] }): Promise<Integration> {
  const update: Record<string, unknown> = { updated_at: FieldValue.serverTimestamp() };
  if (changes.name) update.name = changes.name;
  const picked = changes.accountIds ? await pickAccounts(orgId, kind, id, changes.accountIds) : null;
  if (picked) update.accounts = picked.accounts;
  if (picked && kind === 'source') await updateSourceWithinPlan(orgId, id, picked.platform, update);
  else await updateExisting(integrations(orgId, kind).doc(id), update, LABEL_OF[kind]);
  return getIntegration(orgId, kind, id);
}

/** The accounts of these ids that the object's login reaches now; 400 for any other id or a manager. */
async function pickAccounts(orgId: string, kind: IntegrationKind, id: string, accountIds: string[]): Promise<{ accounts: AdAccount[]; platform: Platform }> {
  const wanted = new Set(accountIds);
  const { reachable, platform } = await withSession(orgId, kind, id, async (session, integration) => ({
    reachable: await listAccounts(integration.platform, session.accessToken),
    platform: integration.platform,
  }));
  const accounts = reachable.filter((account) => wanted.has(account.id));
  const refuse = (message: string) => new ApiError(400, 'invalid_request', 'Some fields are missing or invalid.', { accountIds: [message] });
  if (accounts.length !== wanted.size) throw refuse('Pick only accounts this login can reach');
  if (accounts.some((account) => account.isManager)) throw refuse('A manager account has no campaigns of its own: pick its client accounts');
  return { accounts, platform };
}

/**
 * Saves a source's accounts in a transaction with the plan and every other source read, so two
 * saves at once cannot together pass the limit. The limit is the organization's, whoever saves
 * (super admins included); a save that adds no ad accounts passes, so an organization over its limit
 * after a downgrade can still trim its selection.
 */
async function updateSourceWithinPlan(orgId: string, id: string, platform: Platform, update: Record<string, unknown>): Promise<void> {
  await adminDb().runTransaction(async (transaction) => {
    const [org, sources] = await Promise.all([transaction.get(organization(orgId)), transaction.get(integrations(orgId, 'source').select('platform', 'accounts'))]);
    const current = sources.docs.find((doc) => doc.id === id);
    if (!current) throw notFound(LABEL_OF.source);
    const others = sources.docs.filter((doc) => doc.id !== id).map((doc) => ({ platform: doc.get('platform'), accounts: doc.get('accounts') ?? [] }));
    const before = countAdAccounts([...others, { platform, accounts: current.get('accounts') ?? [] }]);
    const after = countAdAccounts([...others, { platform, accounts: update.accounts as AdAccount[] }]);
    const plan = org.get('subscription')?.plan ?? null;
    if (after > before && !includesAdAccounts(entitlementsOf(plan), after)) {
      throw new ApiError(403, 'plan_limit', adAccountLimitMessage(plan, after));
    }
    transaction.update(current.ref, update);
  });
}
