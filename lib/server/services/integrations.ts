import type { z } from 'zod';
import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import {
  inWords,
  PLATFORM_LABELS,
  type AdAccount,
  type Integration,
  type IntegrationKind,
  type Platform,
} from '@/lib/shared/integrations/platforms';
import { REUSABLE_LOGIN_PLATFORMS } from '@/lib/shared/integrations/reuse';
import type { createDestinationSchema } from '@/lib/shared/schemas/integrations';
import { forgetAlerts, resolveAlert } from '@/lib/server/alerts';
import { trackEvent } from '@/lib/server/analytics';
import { connectorFor, type Credential } from '@/lib/server/connectors/registry';
import type { Connection } from '@/lib/server/connectors/types';
import { missingScopes } from '@/lib/server/connectors/scopes';
import { connectWithKey, forgetSessionsOf, sealCredential, withSession } from '@/lib/server/credentials';
import { DomainError, invalidFields } from '@/lib/server/errors';
import * as repo from '@/lib/server/repos/integrations';
import { applyPlan } from '@/lib/server/services/planLimits';

/**
 * What sources and destinations do beyond storage: a new or reconnected login is sealed and saved,
 * the platform is asked what the login reaches, and each change is an analytics event.
 */

interface NewIntegration {
  kind: IntegrationKind;
  platform: Platform;
  name?: string;
  connection: Connection<Credential>;
  uid: string;
}

/** Saves a new source or destination with its sealed credential, and says so to analytics. */
export async function createIntegration(orgId: string, input: NewIntegration): Promise<Integration> {
  const { kind, platform, connection, uid } = input;
  const credentialId = repo.newCredentialId(orgId);
  const created = await repo.createIntegration(orgId, {
    kind,
    platform,
    name: input.name,
    accountName: connection.accountName,
    credentialId,
    sealedCredential: sealCredential(orgId, credentialId, connection.credential),
    accounts: connection.accounts,
    settings: connection.settings,
    uid,
  });
  await trackEvent(uid, kind === 'source' ? ANALYTICS_EVENTS.sourceCreated : ANALYTICS_EVENTS.destinationCreated, {
    org_id: orgId,
    platform,
    [`${kind}_id`]: created.id,
  });
  return created;
}

/** Mixpanel and BigQuery-with-a-key destinations are created from credentials checked first. */
export async function createDestinationFromKey(
  orgId: string,
  uid: string,
  body: z.infer<typeof createDestinationSchema>,
): Promise<Integration> {
  const { platform, name, ...input } = body;
  const connection = await connectWithKey(platform, input);
  return createIntegration(orgId, { kind: 'destination', platform, name, connection, uid });
}

/** A reused login's destination is named apart from its source: the two are told apart in every list. */
export const destinationNameOnLogin = (platform: Platform, accountName: string) =>
  `${PLATFORM_LABELS[platform]} conversions · ${accountName}`.slice(0, 100);

/**
 * The destination on the login of one of the organization's sources: one login serves both directions.
 * It refers to the source's credential (no copy), so reconnecting either mends both, and starts with the
 * accounts picked on the source. Asked again, it is the same destination. Refused when the platform's
 * catalogue record does not say `reusableLogin`, when the source's login is dead, or when the destination
 * needs a scope the source's consent did not ask for (then a consent is needed, `missing_scope`).
 */
export async function reuseSourceLogin(orgId: string, uid: string, fromId: string): Promise<Integration> {
  const source = await repo.getIntegration(orgId, 'source', fromId);
  const label = PLATFORM_LABELS[source.platform];
  if (!REUSABLE_LOGIN_PLATFORMS.includes(source.platform)) {
    throw new DomainError('invalid', `The login of a ${label} source cannot be a conversion destination.`, {
      reason: 'invalid_request',
      fieldErrors: { fromId: [`Pick a ${inWords(REUSABLE_LOGIN_PLATFORMS)} source`] },
    });
  }
  if (source.status !== 'active') {
    throw new DomainError(
      'conflict',
      `The login of "${source.name}" needs reconnecting first: reconnect the source, or connect another account.`,
      {
        reason: 'needs_reauth',
      },
    );
  }
  const missing = missingScopes(source.platform, 'source', 'destination');
  if (missing.length > 0) {
    throw new DomainError('conflict', `${label} needs your consent for ${missing.join(', ')} to send conversions.`, {
      reason: 'missing_scope',
    });
  }
  const existing = (await repo.listIntegrations(orgId, 'destination')).find((destination) => destination.loginSourceId === fromId);
  if (existing) return existing;
  const created = await repo.createOnSourceLogin(orgId, fromId, {
    name: destinationNameOnLogin(source.platform, source.accountName),
    uid,
    accounts: (picked) => picked.filter((account) => !account.isManager),
  });
  await trackEvent(uid, ANALYTICS_EVENTS.destinationCreated, { org_id: orgId, platform: source.platform, destination_id: created.id });
  return created;
}

/**
 * Reauth: the same object with a new login; it works again, and so does every other object on the same
 * login (a source and the destination on its login). Returns them all, so the caller resumes each.
 */
export async function reconnectIntegration(
  orgId: string,
  kind: IntegrationKind,
  id: string,
  connection: Connection<Credential>,
  uid: string,
): Promise<Array<{ kind: IntegrationKind; id: string }>> {
  const { integration, credentialId } = await repo.loadIntegration(orgId, kind, id);
  const mended = await repo.replaceCredential(orgId, kind, id, {
    credentialId,
    sealedCredential: sealCredential(orgId, credentialId, connection.credential),
    accountName: connection.accountName,
    uid,
  });
  // Every object on the login works again (a source and the destination on its login): each alert is resolved.
  for (const object of mended) {
    forgetSessionsOf(orgId, object.kind, object.id);
    await resolveAlert({
      orgId,
      kind: 'needs_reauth',
      subject: { type: object.kind, id: object.id },
      message: 'Reconnected: its data flows again.',
    });
  }
  await trackEvent(uid, kind === 'source' ? ANALYTICS_EVENTS.sourceReauthenticated : ANALYTICS_EVENTS.destinationReauthenticated, {
    org_id: orgId,
    platform: integration.platform,
    [`${kind}_id`]: id,
  });
  return mended;
}

/** Deletes an object nothing uses any more (its login stays while another object is on it), and says so to analytics. */
export async function deleteIntegration(orgId: string, kind: IntegrationKind, id: string, uid: string): Promise<void> {
  // Another object on the same login keeps it (and keeps working): only this object goes.
  const { integration } = await repo.deleteIntegration(orgId, kind, id);
  await forgetAlerts(orgId, { type: kind, id });
  // The grant is not revoked at the platform: Google and Meta revoke a person's whole grant to our
  // app, which would also cut off every other source or destination that person connected.
  await trackEvent(uid, kind === 'source' ? ANALYTICS_EVENTS.sourceDeleted : ANALYTICS_EVENTS.destinationDeleted, {
    org_id: orgId,
    platform: integration.platform,
    [`${kind}_id`]: id,
  });
}

/** The accounts the object's login reaches now (and which are picked); marks the object when the login died. */
export async function accountsOf(orgId: string, kind: IntegrationKind, id: string): Promise<{ accounts: AdAccount[]; selected: string[] }> {
  return withSession(orgId, kind, id, async (session, integration) => ({
    accounts: await connectorFor(integration.platform).listAccounts(session),
    selected: integration.accounts.map((account) => account.id),
  }));
}

/** The conversion actions / pixels / goals of one of a destination's picked accounts. */
export async function targetsOf(orgId: string, id: string, accountId: string) {
  return withSession(orgId, 'destination', id, async (session, integration) => {
    const account = integration.accounts.find((candidate) => candidate.id === accountId);
    if (!account)
      throw new DomainError('not_found', `Pick this account in the ${PLATFORM_LABELS[integration.platform]} destination first.`);
    return connectorFor(integration.platform).listTargets(session, account);
  });
}

/** The accounts of these ids that the object's login reaches now; invalid for any other id or a manager. */
async function pickAccounts(
  orgId: string,
  kind: IntegrationKind,
  id: string,
  accountIds: string[],
): Promise<{ accounts: AdAccount[]; platform: Platform }> {
  const wanted = new Set(accountIds);
  const { reachable, platform } = await withSession(orgId, kind, id, async (session, integration) => ({
    reachable: await connectorFor(integration.platform).listAccounts(session),
    platform: integration.platform,
  }));
  const accounts = reachable.filter((account) => wanted.has(account.id));
  const refuse = (message: string) => invalidFields({ accountIds: [message] });
  if (accounts.length !== wanted.size) throw refuse('Pick only accounts this login can reach');
  if (accounts.some((account) => account.isManager))
    throw refuse('A manager account has no campaigns of its own: pick its client accounts');
  return { accounts, platform };
}

/**
 * Renames an object and/or keeps the accounts picked by id — only among those its login can reach
 * right now (ids from the browser are never trusted), never a manager account, and for a source
 * never past the ad accounts the organization's plan includes. Unticking an account a connection or
 * conversion uses is refused naming them; a source's connections lose it only when confirmed.
 */
export async function updateIntegration(
  orgId: string,
  kind: IntegrationKind,
  id: string,
  changes: { name?: string; accountIds?: string[]; removeFromConnections?: boolean },
): Promise<Integration> {
  const picked = changes.accountIds ? await pickAccounts(orgId, kind, id, changes.accountIds) : null;
  const saved = await repo.saveIntegration(orgId, kind, id, {
    name: changes.name,
    picked,
    removeFromConnections: changes.removeFromConnections,
  });
  // Fewer ad accounts may bring the organization's connections back within its plan.
  if (picked && kind === 'source') await applyPlan(orgId);
  return saved;
}
