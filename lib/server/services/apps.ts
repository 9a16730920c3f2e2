import type { App, AppPlatformTarget } from '@/lib/shared/integrations/apps';
import { PLATFORM_LABELS, type AdPlatform, writesTables } from '@/lib/shared/integrations/platforms';
import { connectorFor } from '@/lib/server/connectors/registry';
import { withSession } from '@/lib/server/credentials';
import { invalidFields } from '@/lib/server/errors';
import { entitlementsOf } from '@/lib/shared/billing/entitlements';
import {
  clearAppTarget as clearTarget,
  deleteApp as removeApp,
  revokePublishableKey,
  revokeSubmissionKey,
  rotatePublishableKey,
  rotateSubmissionKey,
  saveAppTarget,
  setAppWarehouse as saveWarehouse,
  updateApp,
} from '@/lib/server/repos/apps';
import { forgetApp } from '@/lib/server/services/ingest';
import { getIntegration } from '@/lib/server/repos/integrations';
import { deleteRoutingConversions, ownConversionsOfApp, routingConversionId, saveRoutingConversion } from '@/lib/server/repos/conversions';
import { assertNoTwin } from '@/lib/server/services/conversions';
import { forgetRouting } from '@/lib/server/services/ingestRouting';
import { conversionsPausedByPlan } from '@/lib/server/services/planLimits';
import { conversionTableTargetId, CONVERSIONS_DATASET, CONVERSIONS_TABLE } from '@/lib/server/connectors/bigquery/delivery';
import { sourceKeyOf, type ConversionDestination } from '@/lib/shared/conversions/conversion';

/**
 * Points one platform's conversions at a pixel / conversion action / goal, which must be one the
 * destination's account offers right now (fetched from the platform, never taken from the browser).
 */
export async function setAppTarget(
  orgId: string,
  id: string,
  input: { platform: AdPlatform; destinationId: string; accountId: string; targetId: string },
  options: { plan: unknown; uid: string },
): Promise<App> {
  const invalid = (field: string, message: string) => invalidFields({ [field]: [message] });
  const targets = await withSession(orgId, 'destination', input.destinationId, async (session, destination) => {
    if (destination.platform !== input.platform) throw invalid('destinationId', `Pick a ${PLATFORM_LABELS[input.platform]} destination`);
    const account = destination.accounts.find((candidate) => candidate.id === input.accountId);
    if (!account) throw invalid('accountId', 'Pick one of this destination’s accounts');
    return connectorFor(input.platform).listTargets(session, account);
  });
  const target = targets.find((candidate) => candidate.id === input.targetId);
  if (!target) throw invalid('targetId', 'Pick one from the list');
  const routed: AppPlatformTarget = {
    destinationId: input.destinationId,
    accountId: input.accountId,
    targetId: target.id,
    targetName: target.name,
  };
  // The wizard's conversion of this app to the same target would send every event twice.
  await assertNoTwin(orgId, sourceKeyOf({ type: 'app', appId: id }), routed, [], routingConversionId(id, input.platform));
  const app = await saveAppTarget(orgId, id, input.platform, routed);
  // The routing is a conversion the worker delivers (paused on a plan without conversions).
  await saveRoutingConversion(
    orgId,
    app,
    { ...routed, platform: input.platform },
    { uid: options.uid, active: entitlementsOf(options.plan).conversions, pausedByPlan: conversionsPausedByPlan() },
  );
  forgetRouting(orgId);
  return app;
}

/**
 * Where the app's events go for analytics or the warehouse (null stops it). Either is a routing
 * conversion the worker delivers: Mixpanel imports into the destination's project; BigQuery appends
 * to the table `signalbridge.conversions` of the destination's project (created when missing).
 */
export async function setAppWarehouse(
  orgId: string,
  id: string,
  platform: 'bigquery' | 'mixpanel',
  destinationId: string | null,
  options: { plan: unknown; uid: string },
): Promise<App> {
  // Where it goes is settled before anything is saved: a destination without a project routes nowhere.
  const routed = destinationId ? await warehouseDestination(orgId, id, platform, destinationId) : null;
  const app = await saveWarehouse(orgId, id, platform, destinationId);
  if (!routed) {
    await deleteRoutingConversions(orgId, id, platform);
    forgetRouting(orgId);
    return app;
  }
  await saveRoutingConversion(orgId, app, routed, {
    uid: options.uid,
    active: entitlementsOf(options.plan).conversions,
    pausedByPlan: conversionsPausedByPlan(),
  });
  forgetRouting(orgId);
  return app;
}

/** The routing conversion's destination: a Mixpanel project, or a table in a BigQuery project (its key's, else the first picked). */
async function warehouseDestination(
  orgId: string,
  appId: string,
  platform: 'bigquery' | 'mixpanel',
  destinationId: string,
): Promise<ConversionDestination> {
  const destination = await getIntegration(orgId, 'destination', destinationId);
  if (destination.platform !== platform) throw invalidFields({ destinationId: [`Pick a ${PLATFORM_LABELS[platform]} destination`] });
  if (!writesTables(platform)) {
    const project = destination.settings.projectId ?? '';
    return { destinationId, platform, accountId: project, targetId: project, targetName: destination.accountName || project };
  }
  const project = destination.settings.projectId ?? destination.accounts[0]?.id;
  if (!project) throw invalidFields({ destinationId: ['Pick a project in this BigQuery destination first'] });
  const targetId = conversionTableTargetId(sourceKeyOf({ type: 'app', appId }));
  return { destinationId, platform, accountId: project, targetId, targetName: `${project}.${CONVERSIONS_DATASET}.${CONVERSIONS_TABLE}` };
}

/** Stops sending one platform's conversions of the app. */
export async function clearAppTarget(orgId: string, id: string, platform: AdPlatform): Promise<App> {
  const app = await clearTarget(orgId, id, platform);
  await deleteRoutingConversions(orgId, id, platform);
  forgetRouting(orgId);
  return app;
}

/** Deletes an app with the conversions of its routing; conversions made on their own must go first. */
export async function deleteApp(orgId: string, id: string): Promise<void> {
  // Conversions made on their own keep the app (removeApp refuses, naming them); routing goes with it.
  if ((await ownConversionsOfApp(orgId, id)) === 0) await deleteRoutingConversions(orgId, id);
  await removeApp(orgId, id);
  forgetApp(id);
  forgetRouting(orgId);
}

/*
 * Whatever changes what ingest trusts or fills in (settings, keys, the app itself) goes through here: ingest
 * keeps an app's keys and defaults a few seconds per instance, and this instance forgets them at once.
 */

/** Edits an app's settings (name, default country and consent, thank-you page paths…). */
export async function editApp(orgId: string, id: string, changes: Parameters<typeof updateApp>[2]): Promise<App> {
  const app = await updateApp(orgId, id, changes);
  forgetApp(id);
  return app;
}

/** A new server key (shown once); the old one stops working. */
export async function replaceSubmissionKey(orgId: string, id: string): Promise<Awaited<ReturnType<typeof rotateSubmissionKey>>> {
  const made = await rotateSubmissionKey(orgId, id);
  forgetApp(id);
  return made;
}

/** A new publishable key for the website snippet; the old one stops working. */
export async function replacePublishableKey(orgId: string, id: string): Promise<string> {
  const publishableKey = await rotatePublishableKey(orgId, id);
  forgetApp(id);
  return publishableKey;
}

/** Revokes the app's server key or its publishable key: whatever posts with it is refused from now on. */
export async function revokeAppKey(orgId: string, id: string, key: 'submission' | 'publishable'): Promise<App> {
  const app = key === 'submission' ? await revokeSubmissionKey(orgId, id) : await revokePublishableKey(orgId, id);
  forgetApp(id);
  return app;
}
