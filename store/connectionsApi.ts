import type { Connection, Run, RunDetail, WrittenDay } from '@/lib/shared/connections/connection';
import type { CreateConnectionInput, UpdateConnectionInput } from '@/lib/shared/schemas/connections';
import type { AdRow } from '@/lib/shared/connections/rows';
import { api } from '@/store/api';

const connectionsUrl = (orgId: string) => `/api/orgs/${encodeURIComponent(orgId)}/connections`;
const connectionUrl = (orgId: string, id: string) => `${connectionsUrl(orgId)}/${encodeURIComponent(id)}`;

/** One connection as its configuration page shows it: recent runs, days written, and how far back a backfill may go. */
export interface ConnectionDetail {
  connection: Connection;
  runs: Run[];
  days: WrittenDay[];
  backfill: { earliest: string; allowed: boolean };
}

/** The dry run of the test page: what one account's last days would write, and whether the destination is reachable. */
export interface ConnectionTestResult {
  account: { id: string; name: string };
  from: string;
  to: string;
  rows: AdRow[];
  calls: number;
  destination: { ok: boolean; message: string };
}

export interface ConnectionArgs {
  orgId: string;
  id: string;
}

// One tag for an organization's list and one per connection (its detail: runs, days, backfill).
const listTag = (orgId: string) => ({ type: 'Connections' as const, id: orgId });
const itemTag = ({ orgId, id }: ConnectionArgs) => ({ type: 'Connections' as const, id: `${orgId}/${id}` });

/** Connections, their runs and backfills, and the dry-run test; mutations refresh what they change. */
export const connectionsApi = api.enhanceEndpoints({ addTagTypes: ['Connections'] }).injectEndpoints({
  endpoints: (build) => ({
    connections: build.query<Connection[], string>({
      query: (orgId) => ({ url: connectionsUrl(orgId), method: 'GET' }),
      transformResponse: (response: { connections: Connection[] }) => response.connections,
      providesTags: (_result, _error, orgId) => [listTag(orgId)],
    }),
    connection: build.query<ConnectionDetail, ConnectionArgs>({
      query: ({ orgId, id }) => ({ url: connectionUrl(orgId, id), method: 'GET' }),
      providesTags: (_result, _error, args) => [itemTag(args)],
    }),
    createConnection: build.mutation<{ connection: Connection }, { orgId: string; body: CreateConnectionInput }>({
      query: ({ orgId, body }) => ({ url: connectionsUrl(orgId), body }),
      invalidatesTags: (_result, _error, { orgId }) => [listTag(orgId)],
    }),
    updateConnection: build.mutation<{ connection: Connection }, ConnectionArgs & { changes: UpdateConnectionInput }>({
      query: ({ orgId, id, changes }) => ({ url: connectionUrl(orgId, id), method: 'PATCH', body: changes }),
      invalidatesTags: (_result, _error, args) => [listTag(args.orgId), itemTag(args)],
    }),
    // The detail is not refreshed: it is gone, and the page leaves for the list.
    deleteConnection: build.mutation<unknown, ConnectionArgs>({
      query: ({ orgId, id }) => ({ url: connectionUrl(orgId, id), method: 'DELETE' }),
      invalidatesTags: (_result, _error, { orgId }) => [listTag(orgId)],
    }),
    // A refused run (409 while one is in progress) changes nothing: only a started one refreshes.
    runConnection: build.mutation<{ runId: string }, ConnectionArgs>({
      query: ({ orgId, id }) => ({ url: `${connectionUrl(orgId, id)}/run` }),
      invalidatesTags: (result, _error, args) => (result ? [listTag(args.orgId), itemTag(args)] : []),
    }),
    startBackfill: build.mutation<{ runId: string; chunks: number }, ConnectionArgs & { from: string }>({
      query: ({ orgId, id, from }) => ({ url: `${connectionUrl(orgId, id)}/backfill`, body: { from } }),
      invalidatesTags: (result, _error, args) => (result ? [itemTag(args)] : []),
    }),
    cancelBackfill: build.mutation<unknown, ConnectionArgs>({
      query: ({ orgId, id }) => ({ url: `${connectionUrl(orgId, id)}/backfill`, method: 'DELETE' }),
      invalidatesTags: (_result, _error, args) => [itemTag(args)],
    }),
    // Not cached under the connection's tag: the run page polls while the run lasts.
    run: build.query<RunDetail, ConnectionArgs & { runId: string }>({
      query: ({ orgId, id, runId }) => ({ url: `${connectionUrl(orgId, id)}/runs/${encodeURIComponent(runId)}`, method: 'GET' }),
    }),
    // A dry run writes nothing, so it refreshes nothing.
    testConnection: build.mutation<ConnectionTestResult, ConnectionArgs & { accountId: string }>({
      query: ({ orgId, id, accountId }) => ({ url: `${connectionUrl(orgId, id)}/test`, body: { accountId } }),
    }),
  }),
});

export const {
  useConnectionsQuery,
  useConnectionQuery,
  useRunQuery,
  useCreateConnectionMutation,
  useUpdateConnectionMutation,
  useDeleteConnectionMutation,
  useRunConnectionMutation,
  useStartBackfillMutation,
  useCancelBackfillMutation,
  useTestConnectionMutation,
} = connectionsApi;
