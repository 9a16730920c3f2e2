import { createHash, randomBytes } from 'node:crypto';
import { FieldValue, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { App, AppInput, AppPlatformTarget } from '@/lib/shared/integrations/apps';
import { PLATFORM_LABELS, type AdPlatform } from '@/lib/shared/integrations/platforms';
import { DomainError, invalidFields } from '@/lib/server/errors';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { assertUnused, getIntegration, iso, notFound, updateExisting } from '@/lib/server/repos/integrations';

/** Apps: the websites an organization tracks, where their conversions go, and their submission key. */
const apps = (orgId: string) => adminDb().collection('organizations').doc(orgId).collection('apps');
const submissionKeys = () => adminDb().collection('submission_keys');

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

function toApp(snap: DocumentSnapshot): App {
  const targets = (snap.get('targets') ?? {}) as Record<
    string,
    { destination_id: string; account_id: string; target_id: string; target_name: string }
  >;
  const key = snap.get('submission_key') as { prefix: string; created_at: unknown } | null | undefined;
  return {
    id: snap.id,
    name: snap.get('name'),
    websiteUrl: snap.get('website_url'),
    gtmContainerId: snap.get('gtm_container_id') || null,
    payloadUrls: snap.get('payload_urls') ?? [],
    ...(snap.get('default_country') ? { defaultCountry: snap.get('default_country') as string } : {}),
    ...(snap.get('default_consent') ? { defaultConsent: snap.get('default_consent') as App['defaultConsent'] } : {}),
    ...(snap.get('custom_fields') ? { customFields: snap.get('custom_fields') as App['customFields'] } : {}),
    targets: Object.fromEntries(
      Object.entries(targets).map(([platform, target]) => [
        platform,
        {
          destinationId: target.destination_id,
          accountId: target.account_id,
          targetId: target.target_id,
          targetName: target.target_name,
        } satisfies AppPlatformTarget,
      ]),
    ),
    bigqueryDestinationId: snap.get('bigquery_destination_id') ?? null,
    mixpanelDestinationId: snap.get('mixpanel_destination_id') ?? null,
    submissionKey: key ? { prefix: key.prefix, createdAt: iso(key.created_at) } : null,
    publishableKey: snap.get('publishable_key') ? 'active' : snap.get('publishable_key') === null ? 'revoked' : 'none',
    createdAt: iso(snap.get('created_at')),
  };
}

const fieldsToDoc = (fields: Partial<AppInput>) => ({
  ...(fields.name !== undefined ? { name: fields.name } : {}),
  ...(fields.websiteUrl !== undefined ? { website_url: fields.websiteUrl } : {}),
  ...(fields.gtmContainerId !== undefined ? { gtm_container_id: fields.gtmContainerId } : {}),
  ...(fields.payloadUrls !== undefined ? { payload_urls: [...new Set(fields.payloadUrls)] } : {}),
  ...(fields.defaultCountry !== undefined ? { default_country: fields.defaultCountry } : {}),
  ...(fields.defaultConsent !== undefined ? { default_consent: fields.defaultConsent } : {}),
  ...(fields.customFields !== undefined ? { custom_fields: fields.customFields } : {}),
});

export async function listApps(orgId: string): Promise<App[]> {
  const snapshot = await apps(orgId).orderBy('created_at', 'desc').limit(200).get();
  return snapshot.docs.map(toApp);
}

export async function getApp(orgId: string, id: string): Promise<App> {
  const snap = await apps(orgId).doc(id).get();
  if (!snap.exists) throw notFound('App');
  return toApp(snap);
}

export async function createApp(orgId: string, uid: string, fields: AppInput): Promise<App> {
  const ref = apps(orgId).doc();
  await ref.set({
    gtm_container_id: null,
    ...fieldsToDoc(fields),
    targets: {},
    destination_ids: [],
    bigquery_destination_id: null,
    mixpanel_destination_id: null,
    submission_key: null,
    created_by: uid,
    created_at: FieldValue.serverTimestamp(),
  });
  return toApp(await ref.get());
}

export async function updateApp(orgId: string, id: string, fields: Partial<AppInput>): Promise<App> {
  await updateExisting(apps(orgId).doc(id), { ...fieldsToDoc(fields), updated_at: FieldValue.serverTimestamp() }, 'App');
  return getApp(orgId, id);
}

/** Every destination an app sends to, kept on the app so "is this destination used?" is one query. */
function destinationIdsOf(app: App): string[] {
  const ids = Object.values(app.targets).map((target) => target!.destinationId);
  return [...new Set([...ids, app.bigqueryDestinationId, app.mixpanelDestinationId].filter((id): id is string => Boolean(id)))];
}

/**
 * Changes where the app sends, in one transaction: the routing fields and the destination ids derived
 * from the app as it will be, so two changes at once cannot leave a stale list behind.
 */
async function saveRouting(orgId: string, id: string, update: Record<string, unknown>, change: (app: App) => App): Promise<App> {
  const ref = apps(orgId).doc(id);
  return adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(ref);
    if (!snap.exists) throw notFound('App');
    const next = change(toApp(snap));
    transaction.update(ref, { ...update, destination_ids: destinationIdsOf(next), updated_at: FieldValue.serverTimestamp() });
    return next;
  });
}

/** Saves where one platform's conversions go (a target the service has checked with the platform). */
export async function saveAppTarget(orgId: string, id: string, platform: AdPlatform, routed: AppPlatformTarget): Promise<App> {
  return saveRouting(
    orgId,
    id,
    {
      [`targets.${platform}`]: {
        destination_id: routed.destinationId,
        account_id: routed.accountId,
        target_id: routed.targetId,
        target_name: routed.targetName,
      },
    },
    (app) => ({ ...app, targets: { ...app.targets, [platform]: routed } }),
  );
}

export async function clearAppTarget(orgId: string, id: string, platform: AdPlatform) {
  return saveRouting(orgId, id, { [`targets.${platform}`]: FieldValue.delete() }, (app) => {
    const targets = { ...app.targets };
    delete targets[platform];
    return { ...app, targets };
  });
}

/** The field of an App that names its warehouse or analytics destination. */
const WAREHOUSE_FIELD_OF = { bigquery: 'bigqueryDestinationId', mixpanel: 'mixpanelDestinationId' } as const;

export async function setAppWarehouse(orgId: string, id: string, platform: 'bigquery' | 'mixpanel', destinationId: string | null) {
  if (destinationId) {
    const destination = await getIntegration(orgId, 'destination', destinationId);
    if (destination.platform !== platform) {
      throw invalidFields({ destinationId: [`Pick a ${PLATFORM_LABELS[platform]} destination`] });
    }
  }
  return saveRouting(orgId, id, { [`${platform}_destination_id`]: destinationId }, (app) => ({
    ...app,
    [WAREHOUSE_FIELD_OF[platform]]: destinationId,
  }));
}

/** A new custom-submission key, shown once; the previous one stops working at the same moment. */
export async function rotateSubmissionKey(orgId: string, id: string): Promise<{ key: string; app: App }> {
  const ref = apps(orgId).doc(id);
  const key = `sbk_${randomBytes(24).toString('base64url')}`;
  const hash = hashKey(key);
  await adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(ref);
    if (!snap.exists) throw notFound('App');
    const previous = snap.get('submission_key.hash') as string | undefined;
    if (previous) transaction.delete(submissionKeys().doc(previous));
    transaction.set(submissionKeys().doc(hash), { org_id: orgId, app_id: id, created_at: FieldValue.serverTimestamp() });
    transaction.update(ref, { submission_key: { hash, prefix: key.slice(0, 10), created_at: FieldValue.serverTimestamp() } });
  });
  return { key, app: await getApp(orgId, id) };
}

export async function revokeSubmissionKey(orgId: string, id: string): Promise<App> {
  const ref = apps(orgId).doc(id);
  await adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(ref);
    if (!snap.exists) throw notFound('App');
    const previous = snap.get('submission_key.hash') as string | undefined;
    if (previous) transaction.delete(submissionKeys().doc(previous));
    transaction.update(ref, { submission_key: null });
  });
  return getApp(orgId, id);
}

/** What a submission key opens: a secret key (server to server) or a publishable one (the website snippet). */
export interface SubmissionKeyOwner {
  orgId: string;
  appId: string;
  kind: 'secret' | 'publishable';
}

/** The app a submission key belongs to, or null for an unknown or revoked key. */
export async function appOfSubmissionKey(key: string): Promise<SubmissionKeyOwner | null> {
  const snap = await submissionKeys().doc(hashKey(key)).get();
  if (!snap.exists) return null;
  return { orgId: snap.get('org_id'), appId: snap.get('app_id'), kind: snap.get('kind') === 'publishable' ? 'publishable' : 'secret' };
}

/**
 * The app's publishable key (`sbp_…`), made on first use: it sits in the website snippet, so it is
 * public — it can only submit events, only from the app's own origin. A revoked key is not made
 * again behind the user's back: conflict until they make a new one (rotatePublishableKey).
 */
export async function ensurePublishableKey(orgId: string, id: string): Promise<string> {
  return setPublishableKey(orgId, id, 'ensure') as Promise<string>;
}

/** A new publishable key: the snippet must be pasted again, the previous key stops working at once. */
export async function rotatePublishableKey(orgId: string, id: string): Promise<string> {
  return setPublishableKey(orgId, id, 'rotate') as Promise<string>;
}

/** Revokes the publishable key: the website snippet stops submitting until a new key is made. */
export async function revokePublishableKey(orgId: string, id: string): Promise<App> {
  await setPublishableKey(orgId, id, 'revoke');
  return getApp(orgId, id);
}

async function setPublishableKey(orgId: string, id: string, action: 'ensure' | 'rotate' | 'revoke'): Promise<string | null> {
  const ref = apps(orgId).doc(id);
  return adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(ref);
    if (!snap.exists) throw notFound('App');
    const existing = snap.get('publishable_key') as string | null | undefined;
    if (action === 'ensure' && existing) return existing;
    if (action === 'ensure' && existing === null)
      throw new DomainError('conflict', 'The website key was revoked. Make a new one to show the snippet.', {
        reason: 'publishable_key_revoked',
      });
    if (existing) transaction.delete(submissionKeys().doc(hashKey(existing)));
    if (action === 'revoke') {
      transaction.update(ref, { publishable_key: null });
      return null;
    }
    const key = `sbp_${randomBytes(18).toString('base64url')}`;
    transaction.set(submissionKeys().doc(hashKey(key)), {
      org_id: orgId,
      app_id: id,
      kind: 'publishable',
      created_at: FieldValue.serverTimestamp(),
    });
    transaction.update(ref, { publishable_key: key });
    return key;
  });
}

export async function deleteApp(orgId: string, id: string): Promise<void> {
  const snap = await apps(orgId).doc(id).get();
  if (!snap.exists) throw notFound('App');
  await assertUnused(orgId, 'app_id', id, 'App');
  const batch = adminDb().batch();
  const hash = snap.get('submission_key.hash') as string | undefined;
  if (hash) batch.delete(submissionKeys().doc(hash));
  const publishable = snap.get('publishable_key') as string | undefined;
  if (publishable) batch.delete(submissionKeys().doc(hashKey(publishable)));
  batch.delete(snap.ref);
  await batch.commit();
}
