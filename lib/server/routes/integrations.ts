import { z } from 'zod';
import { PLATFORM_LABELS, type IntegrationKind } from '@/lib/integrations/platforms';
import { createDestinationSchema, objectRouteSchema, orgRouteSchema, targetsQuerySchema, updateIntegrationSchema } from '@/lib/schemas/integrations';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { listAccounts, listTargets, type Credential } from '@/lib/server/platforms';
import { googleServiceAccountToken, type ServiceAccountKey } from '@/lib/server/platforms/google';
import { PlatformError } from '@/lib/server/platforms/http';
import { checkMixpanel } from '@/lib/server/platforms/mixpanel';
import {
  COLLECTION_OF,
  createIntegration,
  deleteIntegration,
  getIntegration,
  listIntegrations,
  updateIntegration,
  usageFieldOf,
  usageOf,
  withSession,
} from '@/lib/server/repos/integrations';

/**
 * The resource routes of sources and destinations, one factory for both kinds:
 * `/api/orgs/{orgId}/{sources|destinations}[/{id}[/accounts|/targets|/usage]]`.
 */

const toBadRequest = (error: unknown, field: string): never => {
  if (error instanceof PlatformError) throw new ApiError(400, 'invalid_credentials', error.message, { [field]: [error.message] });
  throw error;
};

function parseServiceAccountKey(text: string): ServiceAccountKey {
  const invalid = () => new ApiError(400, 'invalid_request', 'Some fields are missing or invalid.', { serviceAccountKey: ['Paste the whole JSON key file of a service account'] });
  let key: Partial<ServiceAccountKey>;
  try {
    key = JSON.parse(text) as Partial<ServiceAccountKey>;
  } catch {
    throw invalid();
  }
  if (key.type !== 'service_account' || !key.client_email || !key.private_key || !key.project_id) throw invalid();
  return { type: 'service_account', project_id: key.project_id, client_email: key.client_email, private_key: key.private_key, token_uri: key.token_uri ?? '' };
}

/** Mixpanel and BigQuery-with-a-key destinations are created from credentials checked first. */
async function createFromCredentials(orgId: string, uid: string, body: z.infer<typeof createDestinationSchema>) {
  if (body.platform === 'mixpanel') {
    const { username, secret, projectId, residency } = body;
    const projectName = await checkMixpanel({ username, secret, projectId, residency }).catch((error) => toBadRequest(error, 'secret'));
    const credential: Credential = { type: 'mixpanel', username, secret, projectId, residency };
    return createIntegration(orgId, {
      kind: 'destination',
      platform: 'mixpanel',
      name: body.name,
      accountName: projectName,
      credential,
      settings: { projectId, residency },
      uid,
    });
  }
  const key = parseServiceAccountKey(body.serviceAccountKey);
  await googleServiceAccountToken(key).catch((error) => toBadRequest(error, 'serviceAccountKey'));
  return createIntegration(orgId, {
    kind: 'destination',
    platform: 'bigquery',
    name: body.name,
    accountName: key.client_email,
    credential: { type: 'google_service_account', key },
    accounts: [{ id: key.project_id, name: key.project_id }],
    settings: { projectId: key.project_id },
    uid,
  });
}

export function collectionRoutes(kind: IntegrationKind) {
  return createHandler({
    GET: route({
      access: 'orgMember',
      subscription: 'required',
      query: orgRouteSchema,
      permission: [kind, 'read'],
      handle: async ({ org }) => ({ [COLLECTION_OF[kind]]: await listIntegrations(org.id, kind) }),
    }),
    ...(kind === 'destination'
      ? {
          POST: route({
            access: 'orgMember',
            subscription: 'required',
            query: orgRouteSchema,
            body: createDestinationSchema,
            permission: ['destination', 'create'],
            handle: async ({ org, caller, body }) => ({ destination: await createFromCredentials(org.id, caller.uid, body) }),
          }),
        }
      : {}),
  });
}

export function itemRoutes(kind: IntegrationKind) {
  return createHandler({
    GET: route({
      access: 'orgMember',
      subscription: 'required',
      query: objectRouteSchema,
      permission: [kind, 'read'],
      handle: async ({ org, query }) => ({ [kind]: await getIntegration(org.id, kind, query.id) }),
    }),
    PATCH: route({
      access: 'orgMember',
      subscription: 'required',
      query: objectRouteSchema,
      body: updateIntegrationSchema,
      permission: [kind, 'update'],
      handle: async ({ org, query, body }) => ({ [kind]: await updateIntegration(org.id, kind, query.id, body) }),
    }),
    DELETE: route({
      access: 'orgMember',
      query: objectRouteSchema,
      permission: [kind, 'delete'],
      async handle({ org, query, caller }) {
        await deleteIntegration(org.id, kind, query.id, caller.uid);
        return { success: true };
      },
    }),
  });
}

/** GET: the accounts the login can reach now (and which are picked); marks the object when the login died. */
export function accountsRoutes(kind: IntegrationKind) {
  return createHandler({
    GET: route({
      access: 'orgMember',
      subscription: 'required',
      query: objectRouteSchema,
      permission: [kind, 'read'],
      handle: ({ org, query }) =>
        withSession(org.id, kind, query.id, async (session, integration) => ({
          accounts: await listAccounts(integration.platform, session.accessToken),
          selected: integration.accounts.map((account) => account.id),
        })),
    }),
  });
}

/** GET ?accountId: the conversion actions / pixels / goals of one of the destination's accounts. */
export const targetsRoutes = createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: targetsQuerySchema,
    permission: ['destination', 'read'],
    handle: ({ org, query }) =>
      withSession(org.id, 'destination', query.id, async (session, integration) => {
        const account = integration.accounts.find((candidate) => candidate.id === query.accountId);
        if (!account) throw new ApiError(404, 'not_found', `Pick this account in the ${PLATFORM_LABELS[integration.platform]} destination first.`);
        return { targets: await listTargets(integration.platform, session.accessToken, account) };
      }),
  }),
});

export function usageRoutes(kind: IntegrationKind) {
  return createHandler({
    GET: route({
      access: 'orgMember',
      subscription: 'required',
      query: objectRouteSchema,
      permission: [kind, 'read'],
      async handle({ org, query }) {
        await getIntegration(org.id, kind, query.id);
        return { usage: await usageOf(org.id, usageFieldOf(kind), query.id) };
      },
    }),
  });
}
