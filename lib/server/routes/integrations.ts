import type { IntegrationKind } from '@/lib/shared/integrations/platforms';
import { createDestinationSchema, reuseLoginSchema, targetsQuerySchema, updateIntegrationSchema } from '@/lib/shared/schemas/integrations';
import { objectRouteSchema, orgRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { COLLECTION_OF, getIntegration, listIntegrations, loginSharersOf, usageFieldOf, usageOf } from '@/lib/server/repos/integrations';
import {
  accountsOf,
  createDestinationFromKey,
  deleteIntegration,
  reuseSourceLogin,
  targetsOf,
  updateIntegration,
} from '@/lib/server/services/integrations';

/**
 * The resource routes of sources and destinations, one factory for both kinds:
 * `/api/orgs/{orgId}/{sources|destinations}[/{id}[/accounts|/targets|/usage]]`.
 */

export function collectionRoutes(kind: IntegrationKind) {
  return createHandler({
    GET: route({
      access: 'orgMember',
      subscription: 'required',
      query: orgRouteSchema,
      permission: [kind, 'read'],
      preload: ({ orgId }) => listIntegrations(orgId, kind),
      handle: ({ preloaded }) => ({ [COLLECTION_OF[kind]]: preloaded }),
    }),
    ...(kind === 'destination'
      ? {
          POST: route({
            access: 'orgMember',
            subscription: 'required',
            query: orgRouteSchema,
            body: createDestinationSchema,
            permission: ['destination', 'create'],
            handle: async ({ org, caller, body }) => ({ destination: await createDestinationFromKey(org.id, caller.uid, body) }),
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
      handle: ({ org, query }) => accountsOf(org.id, kind, query.id),
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
    handle: async ({ org, query }) => ({ targets: await targetsOf(org.id, query.id, query.accountId) }),
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
        const sharedLogin = await loginSharersOf(org.id, kind, query.id);
        return { usage: { ...(await usageOf(org.id, usageFieldOf(kind), query.id)), sharedLogin } };
      },
    }),
  });
}

/**
 * POST {fromId, kind: 'destination'} → {destination}: a conversion destination on the login of one of the
 * organization's sources, with no second consent. Same rights as connecting a destination.
 */
export const reuseRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: reuseLoginSchema,
    permission: ['destination', 'create'],
    handle: async ({ org, caller, body }) => ({ destination: await reuseSourceLogin(org.id, caller.uid, body.fromId) }),
  }),
});
