import { backfillSchema, createConnectionSchema, testConnectionSchema, updateConnectionSchema } from '@/lib/shared/schemas/connections';
import { documentIdSchema } from '@/lib/shared/schemas/ids';
import { objectRouteSchema, orgRouteSchema } from '@/lib/shared/schemas/integrations';
import { createHandler, route } from '@/lib/server/http/createHandler';
import {
  cancelBackfill,
  connectionDetail,
  createConnection,
  deleteConnection,
  listConnections,
  runNow,
  startBackfill,
  testConnection,
  updateConnection,
} from '@/lib/server/services/connections';
import { runDetail, runsCsv } from '@/lib/server/services/runs';

/** `/api/orgs/{orgId}/connections[/{id}[/run|/backfill|/test]]`. */

const planOf = (org: { data: FirebaseFirestore.DocumentData }) => org.data.subscription?.plan ?? null;

export const connectionsRoutes = createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    permission: ['connection', 'read'],
    handle: async ({ org }) => ({ connections: await listConnections(org.id) }),
  }),
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: createConnectionSchema,
    permission: ['connection', 'create'],
    handle: async ({ org, caller, body }) => ({ connection: await createConnection(org.id, planOf(org), caller.uid, body) }),
  }),
});

export const connectionRoutes = createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['connection', 'read'],
    handle: ({ org, query }) => connectionDetail(org.id, planOf(org), query.id),
  }),
  PATCH: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: updateConnectionSchema,
    permission: ['connection', 'update'],
    handle: async ({ org, query, body }) => ({ connection: await updateConnection(org.id, planOf(org), query.id, body) }),
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['connection', 'delete'],
    handle: async ({ org, caller, query }) => {
      await deleteConnection(org.id, caller.uid, query.id);
      return { success: true };
    },
  }),
});

export const runRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['connection', 'update'],
    handle: ({ org, query }) => runNow(org.id, query.id),
  }),
});

export const backfillRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: backfillSchema,
    permission: ['connection', 'update'],
    handle: ({ org, caller, query, body }) => startBackfill(org.id, planOf(org), caller.uid, query.id, body.from),
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['connection', 'update'],
    handle: async ({ org, query }) => {
      await cancelBackfill(org.id, query.id);
      return { success: true };
    },
  }),
});

export const testRoutes = createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: testConnectionSchema,
    permission: ['connection', 'read'],
    handle: ({ org, query, body }) => testConnection(org.id, query.id, body.accountId),
  }),
});

const runRouteSchema = objectRouteSchema.extend({ runId: documentIdSchema });

/** `GET /api/orgs/{orgId}/connections/{id}/runs/{runId}`: one run, per account. */
export const runDetailRoutes = createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: runRouteSchema,
    permission: ['connection', 'read'],
    handle: ({ org, query }) => runDetail(org.id, query.id, query.runId),
  }),
});

/** `GET /api/orgs/{orgId}/connections/{id}/runs.csv`: the run history as a file. */
export const runsCsvRoutes = createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['connection', 'read'],
    handle: async ({ org, query, res }) => {
      const csv = await runsCsv(org.id, query.id);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="runs-${query.id}.csv"`);
      res.setHeader('Cache-Control', 'private, no-store');
      res.status(200).send(csv);
      return undefined;
    },
  }),
});
