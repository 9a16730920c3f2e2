import {
  FieldValue,
  Timestamp,
  type DocumentData,
  type DocumentReference,
  type DocumentSnapshot,
  type QueryDocumentSnapshot,
  type UpdateData,
} from 'firebase-admin/firestore';
import { adAccountLimitMessage, countAdAccounts, entitlementsOf, includesAdAccounts } from '@/lib/shared/billing/entitlements';
import {
  PLATFORM_LABELS,
  type AdAccount,
  type Integration,
  type IntegrationKind,
  type Platform,
  type Usage,
} from '@/lib/shared/integrations/platforms';
import { DomainError, notFound as notFoundError } from '@/lib/server/errors';
import { adminDb } from '@/lib/server/firebaseAdmin';

/**
 * Sources, destinations and their sealed credentials in Firestore: reads and writes only. Sealing,
 * sessions and analytics events are lib/server/credentials.ts and lib/server/services/integrations.ts.
 */

export const COLLECTION_OF: Record<IntegrationKind, 'sources' | 'destinations'> = { source: 'sources', destination: 'destinations' };
export const LABEL_OF: Record<IntegrationKind, string> = { source: 'Source', destination: 'Destination' };

const organization = (orgId: string) => adminDb().collection('organizations').doc(orgId);
export const integrations = (orgId: string, kind: IntegrationKind) => organization(orgId).collection(COLLECTION_OF[kind]);
export const credentials = (orgId: string) => organization(orgId).collection('credentials');

export const iso = (value: unknown) => (value instanceof Timestamp ? value.toDate().toISOString() : new Date(0).toISOString());

/** The answer for a missing source, destination, app or payment account. */
export const notFound = (label: string) => notFoundError(`${label} not found.`);

/** Updates a document that must exist: a missing one is not_found (gRPC NOT_FOUND), not a crash. */
export async function updateExisting(ref: DocumentReference, data: UpdateData<DocumentData>, label: string): Promise<void> {
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
    ...(typeof snap.get('login_source_id') === 'string' ? { loginSourceId: snap.get('login_source_id') as string } : {}),
  };
}

export async function listIntegrations(orgId: string, kind: IntegrationKind): Promise<Integration[]> {
  const snapshot = await integrations(orgId, kind).orderBy('created_at', 'desc').limit(500).get();
  return snapshot.docs.map((doc) => toIntegration(kind, doc));
}

/** The object as the browser may see it, and (server only) where its credential is. */
export async function loadIntegration(
  orgId: string,
  kind: IntegrationKind,
  id: string,
): Promise<{ integration: Integration; credentialId: string }> {
  const snap = await integrations(orgId, kind).doc(id).get();
  if (!snap.exists) throw notFound(LABEL_OF[kind]);
  return { integration: toIntegration(kind, snap), credentialId: snap.get('credential_id') };
}

export async function getIntegration(orgId: string, kind: IntegrationKind, id: string): Promise<Integration> {
  return (await loadIntegration(orgId, kind, id)).integration;
}

/** A sealed credential as stored: `sealed` opens only with the document path as associated data. */
export interface SealedCredential {
  sealed: string;
  type: string;
}

/** A sealed credential as stored: with when it was written. */
export const storedCredential = (sealed: SealedCredential, owner?: string) => ({
  ...sealed,
  ...(owner ? { owner } : {}),
  updated_at: FieldValue.serverTimestamp(),
});

/** An id for a credential about to be written (it is part of what the seal binds to). */
export const newCredentialId = (orgId: string) => credentials(orgId).doc().id;

/** The sealed text of a credential, or null when the document is gone. */
export async function readSealedCredential(orgId: string, credentialId: string): Promise<string | null> {
  const snap = await credentials(orgId).doc(credentialId).get();
  return snap.exists ? (snap.get('sealed') as string) : null;
}

/** Replaces a credential in place (a platform rotated it). */
export async function updateSealedCredential(orgId: string, credentialId: string, sealed: SealedCredential): Promise<void> {
  await credentials(orgId).doc(credentialId).update(storedCredential(sealed));
}

interface NewIntegration {
  kind: IntegrationKind;
  platform: Platform;
  name?: string;
  accountName: string;
  credentialId: string;
  sealedCredential: SealedCredential;
  accounts?: AdAccount[];
  settings?: Record<string, string>;
  uid: string;
}

/** Every object (source or destination) whose login is this credential: one login may serve both directions. */
export async function objectsOnLogin(orgId: string, credentialId: string): Promise<DocumentSnapshot[]> {
  const [sources, destinations] = await Promise.all(
    (['source', 'destination'] as const).map((kind) =>
      integrations(orgId, kind).where('credential_id', '==', credentialId).limit(50).get(),
    ),
  );
  return [...sources!.docs, ...destinations!.docs];
}

/** The other objects on the same login as this one, as the browser may see them (no credential). */
export async function loginSharersOf(
  orgId: string,
  kind: IntegrationKind,
  id: string,
): Promise<Array<{ id: string; kind: IntegrationKind; name: string }>> {
  const { credentialId } = await loadIntegration(orgId, kind, id);
  if (!credentialId) return [];
  return (await objectsOnLogin(orgId, credentialId))
    .filter((snap) => snap.ref.path !== integrations(orgId, kind).doc(id).path)
    .map((snap) => ({ id: snap.id, kind: kindOfRef(snap.ref), name: String(snap.get('name') ?? snap.id) }));
}

/**
 * A destination on the login of a source: no copy of the credential, a reference to the same one, so a
 * reconnect of either mends both. Read in a transaction with the source: a source deleted or marked
 * "needs reconnecting" meanwhile is refused. It starts with the accounts picked on the source.
 */
export async function createOnSourceLogin(
  orgId: string,
  sourceId: string,
  input: { name: string; uid: string; accounts: (picked: AdAccount[]) => AdAccount[] },
): Promise<Integration> {
  const ref = integrations(orgId, 'destination').doc();
  await adminDb().runTransaction(async (transaction) => {
    const source = await transaction.get(integrations(orgId, 'source').doc(sourceId));
    if (!source.exists) throw notFound(LABEL_OF.source);
    if ((source.get('status') ?? 'active') !== 'active')
      throw new DomainError('conflict', `The login of "${source.get('name')}" needs reconnecting first: reconnect the source.`, {
        reason: 'needs_reauth',
      });
    transaction.set(ref, {
      platform: source.get('platform'),
      name: input.name,
      account_name: source.get('account_name') ?? '',
      status: 'active',
      credential_id: source.get('credential_id'),
      login_source_id: sourceId,
      accounts: input.accounts((source.get('accounts') ?? []) as AdAccount[]),
      settings: {},
      connected_by: input.uid,
      // The login's own connection time: sessions are cached per login and this version (credentials.ts).
      connected_at: source.get('connected_at') ?? FieldValue.serverTimestamp(),
      created_at: FieldValue.serverTimestamp(),
    });
  });
  return toIntegration('destination', await ref.get());
}

/** Writes a new object and its credential together. */
export async function createIntegration(orgId: string, input: NewIntegration): Promise<Integration> {
  const db = adminDb();
  const ref = integrations(orgId, input.kind).doc();
  const credentialRef = credentials(orgId).doc(input.credentialId);
  const batch = db.batch();
  batch.set(credentialRef, storedCredential(input.sealedCredential, `${COLLECTION_OF[input.kind]}/${ref.id}`));
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
  return toIntegration(input.kind, await ref.get());
}

/**
 * Reauth: the same object with a new login; it works again, and so does every other object on the same
 * login (a destination using a source's login, or the source of a destination reconnected). Returns them all.
 */
export async function replaceCredential(
  orgId: string,
  kind: IntegrationKind,
  id: string,
  change: { credentialId: string; sealedCredential: SealedCredential; accountName: string; uid: string },
): Promise<Array<{ kind: IntegrationKind; id: string }>> {
  const { credentialId, sealedCredential, accountName, uid } = change;
  const self = integrations(orgId, kind).doc(id);
  const others = credentialId ? (await objectsOnLogin(orgId, credentialId)).filter((snap) => snap.ref.path !== self.path) : [];
  const batch = adminDb().batch();
  batch.set(credentials(orgId).doc(credentialId), storedCredential(sealedCredential, `${COLLECTION_OF[kind]}/${id}`));
  const mended = {
    status: 'active',
    account_name: accountName,
    connected_by: uid,
    // One server timestamp for the batch: every object on the login has the same version (credentials.ts caches by it).
    connected_at: FieldValue.serverTimestamp(),
    reauth_reason: FieldValue.delete(),
  };
  batch.update(self, mended);
  for (const other of others) batch.update(other.ref, mended);
  await batch.commit();
  return [{ kind, id }, ...others.map((snap) => ({ kind: kindOfRef(snap.ref), id: snap.id }))];
}

const kindOfRef = (ref: DocumentReference): IntegrationKind => (ref.parent.id === 'sources' ? 'source' : 'destination');

/**
 * The login behind an object is dead: it and every other object on the same login are marked (the UI
 * offers a one-click reconnect; credentials.ts alerts the team). Rare (a login dies once), so the query is fine.
 */
export async function markNeedsReauth(orgId: string, kind: IntegrationKind, id: string, reason: string): Promise<void> {
  const self = integrations(orgId, kind).doc(id);
  const snap = await self.get();
  const credentialId = snap.get('credential_id') as string | undefined;
  const others = credentialId ? (await objectsOnLogin(orgId, credentialId)).filter((other) => other.ref.path !== self.path) : [];
  const dead = { status: 'needs_reauth', reauth_reason: reason, reauth_at: FieldValue.serverTimestamp() };
  const batch = adminDb().batch();
  batch.update(self, dead);
  for (const other of others) if ((other.get('status') ?? 'active') === 'active') batch.update(other.ref, dead);
  await batch.commit();
}

const named = (snap: DocumentSnapshot) => ({ id: snap.id, name: String(snap.get('name') ?? snap.id) });

/** The field that connections, conversions and apps refer to an object by. */
export type UsageField = 'source_id' | 'destination_id' | 'app_id';
export const usageFieldOf = (kind: IntegrationKind): UsageField => (kind === 'source' ? 'source_id' : 'destination_id');

/** What still uses an object (a source, destination, payment account or app). */
export async function usageOf(orgId: string, field: UsageField, id: string): Promise<Usage> {
  const org = organization(orgId);
  const [connections, conversions, reading, apps] = await Promise.all([
    org.collection('connections').where(field, '==', id).limit(20).get(),
    org.collection('conversions').where(field, '==', id).limit(20).get(),
    // A BigQuery or Mixpanel destination is also a conversion's source (its `source_id`) when read from.
    field === 'destination_id' ? org.collection('conversions').where('source_id', '==', id).limit(20).get() : null,
    field === 'destination_id' ? org.collection('apps').where('destination_ids', 'array-contains', id).limit(20).get() : null,
  ]);
  // A conversion made by an app's routing is part of the app: the app is what uses the object.
  const ownConversions = [...conversions.docs, ...(reading?.docs ?? [])].filter((doc) => doc.get('routing') !== true);
  return { connections: connections.docs.map(named), conversions: ownConversions.map(named), apps: apps?.docs.map(named) ?? [] };
}

/** Refuses (in_use) to delete an object something still uses, saying what. */
export async function assertUnused(orgId: string, field: UsageField, id: string, label: string): Promise<void> {
  const usage = await usageOf(orgId, field, id);
  if (usage.connections.length + usage.conversions.length + usage.apps.length > 0)
    throw new DomainError('in_use', describeUsage(label, usage));
}

function describeUsage(label: string, usage: Usage): string {
  const parts = [
    usage.connections.length && `${usage.connections.length} connection${usage.connections.length === 1 ? '' : 's'}`,
    usage.conversions.length && `${usage.conversions.length} conversion${usage.conversions.length === 1 ? '' : 's'}`,
    usage.apps.length && `${usage.apps.length} app${usage.apps.length === 1 ? '' : 's'}`,
  ].filter(Boolean);
  return `This ${label.toLowerCase()} is still used by ${parts.join(' and ')}. Remove it from them first.`;
}

/**
 * Deletes an object unused by anything, with its credential unless another object is on the same login
 * (then the login stays and the other keeps working; a destination no longer names the deleted source).
 * Returns what it was and the objects that keep the login.
 */
export async function deleteIntegration(
  orgId: string,
  kind: IntegrationKind,
  id: string,
): Promise<{ integration: Integration; keptBy: Array<{ kind: IntegrationKind; id: string }> }> {
  const { integration, credentialId } = await loadIntegration(orgId, kind, id);
  await assertUnused(orgId, usageFieldOf(kind), id, LABEL_OF[kind]);
  const self = integrations(orgId, kind).doc(id);
  const others = credentialId ? (await objectsOnLogin(orgId, credentialId)).filter((snap) => snap.ref.path !== self.path) : [];
  const batch = adminDb().batch();
  batch.delete(self);
  if (others.length === 0) batch.delete(credentials(orgId).doc(credentialId));
  else batch.update(credentials(orgId).doc(credentialId), { owner: `${others[0]!.ref.parent.id}/${others[0]!.id}` });
  for (const other of others) if (other.get('login_source_id') === id) batch.update(other.ref, { login_source_id: FieldValue.delete() });
  await batch.commit();
  return { integration, keptBy: others.map((snap) => ({ kind: kindOfRef(snap.ref), id: snap.id })) };
}

/**
 * Saves a new name and/or accounts (already checked against the login); a source's accounts are
 * saved within the organization's plan.
 */
export async function saveIntegration(
  orgId: string,
  kind: IntegrationKind,
  id: string,
  changes: { name?: string; picked?: { accounts: AdAccount[]; platform: Platform } | null; removeFromConnections?: boolean },
): Promise<Integration> {
  const update: Record<string, unknown> = { updated_at: FieldValue.serverTimestamp() };
  if (changes.name) update.name = changes.name;
  const picked = changes.picked;
  if (picked) update.accounts = picked.accounts;
  if (picked && kind === 'source') await updateSourceWithinPlan(orgId, id, picked.platform, update, changes.removeFromConnections === true);
  else {
    if (picked) await assertDestinationAccountsUnused(orgId, id, picked.accounts);
    await updateExisting(integrations(orgId, kind).doc(id), update, LABEL_OF[kind]);
  }
  return getIntegration(orgId, kind, id);
}

const accountLabel = (account: { id: string; name?: string }) => (account.name ? `"${account.name}" (${account.id})` : account.id);
const listed = (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/**
 * A destination's account that a conversion sends to cannot be unticked: the conversion would fail at
 * its next event. Refused (in_use, `accounts_in_use`) naming the conversions, an app's routing included.
 */
async function assertDestinationAccountsUnused(orgId: string, id: string, accounts: AdAccount[]): Promise<void> {
  const kept = new Set(accounts.map((account) => account.id));
  const conversions = await organization(orgId).collection('conversions').where('destination_id', '==', id).get();
  const using = conversions.docs.filter((doc) => {
    const accountId = doc.get('destination.account_id');
    return typeof accountId === 'string' && accountId !== '' && !kept.has(accountId);
  });
  if (using.length === 0) return;
  const names = using.map((doc) => `"${doc.get('name') ?? doc.id}"${doc.get('routing') === true ? ' (an app’s routing)' : ''}`);
  const accountIds = [...new Set(using.map((doc) => String(doc.get('destination.account_id'))))];
  throw new DomainError(
    'in_use',
    `${accountIds.length === 1 ? 'Account' : 'Accounts'} ${listed(accountIds)} ${accountIds.length === 1 ? 'is' : 'are'} used by the conversion${using.length === 1 ? '' : 's'} ${listed(names)}. Delete ${using.length === 1 ? 'it' : 'them'} or send ${using.length === 1 ? 'it' : 'them'} elsewhere first.`,
    { reason: 'accounts_in_use' },
  );
}

/**
 * The connections of a source that use accounts no longer picked, and what each keeps. Unticking an
 * account a connection reads would leave its next run to fail: the save is refused (in_use,
 * `accounts_in_use`) naming them, unless confirmed (`removeFromConnections`), when the account is taken
 * out of them in the same transaction; a connection left with no account refuses even then.
 */
function connectionsLosingAccounts(
  connectionDocs: QueryDocumentSnapshot[],
  accounts: AdAccount[],
  removeFromConnections: boolean,
): Array<{ ref: DocumentReference; remaining: Array<{ id: string; name: string }> }> {
  const kept = new Set(accounts.map((account) => account.id));
  const affected = connectionDocs
    .map((doc) => {
      const used = (doc.get('source.accounts') ?? []) as Array<{ id: string; name: string }>;
      return { doc, removed: used.filter((account) => !kept.has(account.id)), remaining: used.filter((account) => kept.has(account.id)) };
    })
    .filter((entry) => entry.removed.length > 0);
  if (affected.length === 0) return [];
  const describe = (entry: (typeof affected)[number]) =>
    `the connection "${entry.doc.get('name') ?? entry.doc.id}" uses ${listed(entry.removed.map(accountLabel))}`;
  const emptied = affected.filter((entry) => entry.remaining.length === 0);
  if (removeFromConnections && emptied.length > 0) {
    throw new DomainError(
      'in_use',
      `${listed(emptied.map((entry) => `"${entry.doc.get('name') ?? entry.doc.id}"`))} would have no ad account left. Delete ${emptied.length === 1 ? 'that connection' : 'those connections'} or keep one of ${emptied.length === 1 ? 'its' : 'their'} accounts ticked.`,
      { reason: 'connection_needs_account' },
    );
  }
  if (!removeFromConnections) {
    const message = `${listed(affected.map(describe))}. Saving takes ${affected.length === 1 ? 'it' : 'them'} out of ${affected.length === 1 ? 'that connection' : 'those connections'}, whose runs then skip ${affected.flatMap((entry) => entry.removed).length === 1 ? 'it' : 'them'}.`;
    throw new DomainError('in_use', message.charAt(0).toUpperCase() + message.slice(1), { reason: 'accounts_in_use' });
  }
  return affected.map((entry) => ({ ref: entry.doc.ref, remaining: entry.remaining }));
}

/**
 * Saves a source's accounts in a transaction with the plan and every other source read, so two
 * saves at once cannot together pass the limit. The limit is the organization's, whoever saves
 * (super admins included); a save that adds no ad accounts passes, so an organization over its limit
 * after a downgrade can still trim its selection.
 */
async function updateSourceWithinPlan(
  orgId: string,
  id: string,
  platform: Platform,
  update: Record<string, unknown>,
  removeFromConnections: boolean,
): Promise<void> {
  await adminDb().runTransaction(async (transaction) => {
    const [org, sources, connections] = await Promise.all([
      transaction.get(organization(orgId)),
      transaction.get(integrations(orgId, 'source').select('platform', 'accounts')),
      transaction.get(organization(orgId).collection('connections').where('source_id', '==', id)),
    ]);
    const current = sources.docs.find((doc) => doc.id === id);
    if (!current) throw notFound(LABEL_OF.source);
    const others = sources.docs
      .filter((doc) => doc.id !== id)
      .map((doc) => ({ platform: doc.get('platform'), accounts: doc.get('accounts') ?? [] }));
    const before = countAdAccounts([...others, { platform, accounts: current.get('accounts') ?? [] }]);
    const after = countAdAccounts([...others, { platform, accounts: update.accounts as AdAccount[] }]);
    const plan = org.get('subscription')?.plan ?? null;
    if (after > before && !includesAdAccounts(entitlementsOf(plan), after)) {
      throw new DomainError('plan_limit', adAccountLimitMessage(plan, after));
    }
    const losing = connectionsLosingAccounts(connections.docs, update.accounts as AdAccount[], removeFromConnections);
    transaction.update(current.ref, update);
    for (const { ref, remaining } of losing)
      transaction.update(ref, { 'source.accounts': remaining, updated_at: FieldValue.serverTimestamp() });
  });
}
