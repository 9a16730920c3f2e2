import type { App, AppInput, Payment } from '@/lib/shared/integrations/apps';
import type { AdAccount, AdPlatform, ConversionTarget, Integration, IntegrationKind, Usage } from '@/lib/shared/integrations/platforms';
import { api } from '@/store/api';

const org = (orgId: string) => `/api/orgs/${encodeURIComponent(orgId)}`;
const collection = (kind: IntegrationKind) => (kind === 'source' ? 'sources' : 'destinations');
const item = (orgId: string, kind: IntegrationKind, id: string) => `${org(orgId)}/${collection(kind)}/${encodeURIComponent(id)}`;

interface ObjectArgs {
  orgId: string;
  kind: IntegrationKind;
  id: string;
}

export type AppRouting =
  | { platform: AdPlatform; destinationId: string; accountId: string; targetId: string }
  | { platform: 'bigquery' | 'mixpanel'; destinationId: string | null };

/** Sources, destinations, payment accounts and apps; mutations refresh what they change. */
export const integrationsApi = api.enhanceEndpoints({ addTagTypes: ['Integrations', 'Payments', 'Apps'] }).injectEndpoints({
  endpoints: (build) => ({
    integrations: build.query<Integration[], { orgId: string; kind: IntegrationKind }>({
      query: ({ orgId, kind }) => ({ url: `${org(orgId)}/${collection(kind)}`, method: 'GET' }),
      transformResponse: (response: Record<string, Integration[]>) => response.sources ?? response.destinations ?? [],
      providesTags: (_result, _error, { orgId, kind }) => [{ type: 'Integrations', id: `${orgId}/${kind}` }],
    }),
    integration: build.query<Integration, ObjectArgs>({
      query: ({ orgId, kind, id }) => ({ url: item(orgId, kind, id), method: 'GET' }),
      transformResponse: (response: Record<string, Integration>) => (response.source ?? response.destination)!,
      providesTags: (_result, _error, { orgId, kind }) => [{ type: 'Integrations', id: `${orgId}/${kind}` }],
    }),
    accounts: build.query<{ accounts: AdAccount[]; selected: string[] }, ObjectArgs>({
      query: (args) => ({ url: `${item(args.orgId, args.kind, args.id)}/accounts`, method: 'GET' }),
    }),
    usage: build.query<Usage, ObjectArgs>({
      query: (args) => ({ url: `${item(args.orgId, args.kind, args.id)}/usage`, method: 'GET' }),
      transformResponse: (response: { usage: Usage }) => response.usage,
    }),
    targets: build.query<ConversionTarget[], { orgId: string; id: string; accountId: string }>({
      query: ({ orgId, id, accountId }) => ({
        url: `${item(orgId, 'destination', id)}/targets?accountId=${encodeURIComponent(accountId)}`,
        method: 'GET',
      }),
      transformResponse: (response: { targets: ConversionTarget[] }) => response.targets,
    }),
    updateIntegration: build.mutation<unknown, ObjectArgs & { name?: string; accountIds?: string[]; removeFromConnections?: boolean }>({
      query: ({ orgId, kind, id, ...body }) => ({ url: item(orgId, kind, id), method: 'PATCH', body }),
      invalidatesTags: (_result, _error, { orgId, kind }) => [{ type: 'Integrations', id: `${orgId}/${kind}` }],
    }),
    deleteIntegration: build.mutation<unknown, ObjectArgs>({
      query: ({ orgId, kind, id }) => ({ url: item(orgId, kind, id), method: 'DELETE' }),
      invalidatesTags: (_result, _error, { orgId, kind }) => [{ type: 'Integrations', id: `${orgId}/${kind}` }],
    }),
    createDestination: build.mutation<{ destination: Integration }, { orgId: string; body: Record<string, string> }>({
      query: ({ orgId, body }) => ({ url: `${org(orgId)}/destinations`, body }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Integrations', id: `${orgId}/destination` }],
    }),
    reuseSourceLogin: build.mutation<{ destination: Integration }, { orgId: string; fromId: string }>({
      query: ({ orgId, fromId }) => ({ url: `${org(orgId)}/integrations/reuse`, body: { fromId, kind: 'destination' } }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Integrations', id: `${orgId}/destination` }],
    }),
    payments: build.query<Payment[], string>({
      query: (orgId) => ({ url: `${org(orgId)}/payments`, method: 'GET' }),
      transformResponse: (response: { payments: Payment[] }) => response.payments,
      providesTags: (_result, _error, orgId) => [{ type: 'Payments', id: orgId }],
    }),
    payment: build.query<Payment, { orgId: string; id: string }>({
      query: ({ orgId, id }) => ({ url: `${org(orgId)}/payments/${encodeURIComponent(id)}`, method: 'GET' }),
      transformResponse: (response: { payment: Payment }) => response.payment,
      providesTags: (_result, _error, { orgId }) => [{ type: 'Payments', id: orgId }],
    }),
    createPayment: build.mutation<{ payment: Payment }, { orgId: string; name: string; apiKey: string }>({
      query: ({ orgId, ...body }) => ({ url: `${org(orgId)}/payments`, body }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Payments', id: orgId }],
    }),
    renamePayment: build.mutation<unknown, { orgId: string; id: string; name: string }>({
      query: ({ orgId, id, name }) => ({ url: `${org(orgId)}/payments/${encodeURIComponent(id)}`, method: 'PATCH', body: { name } }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Payments', id: orgId }],
    }),
    updatePayment: build.mutation<unknown, { orgId: string; id: string; defaultCountry: string | null }>({
      query: ({ orgId, id, ...body }) => ({ url: `${org(orgId)}/payments/${encodeURIComponent(id)}`, method: 'PATCH', body }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Payments', id: orgId }],
    }),
    deletePayment: build.mutation<unknown, { orgId: string; id: string }>({
      query: ({ orgId, id }) => ({ url: `${org(orgId)}/payments/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Payments', id: orgId }],
    }),
    apps: build.query<App[], string>({
      query: (orgId) => ({ url: `${org(orgId)}/apps`, method: 'GET' }),
      transformResponse: (response: { apps: App[] }) => response.apps,
      providesTags: (_result, _error, orgId) => [{ type: 'Apps', id: orgId }],
    }),
    app: build.query<App, { orgId: string; id: string }>({
      query: ({ orgId, id }) => ({ url: `${org(orgId)}/apps/${encodeURIComponent(id)}`, method: 'GET' }),
      transformResponse: (response: { app: App }) => response.app,
      providesTags: (_result, _error, { orgId }) => [{ type: 'Apps', id: orgId }],
    }),
    createApp: build.mutation<{ app: App }, { orgId: string } & AppInput>({
      query: ({ orgId, ...body }) => ({ url: `${org(orgId)}/apps`, body }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Apps', id: orgId }],
    }),
    updateApp: build.mutation<{ app: App }, { orgId: string; id: string } & Partial<AppInput>>({
      query: ({ orgId, id, ...body }) => ({ url: `${org(orgId)}/apps/${encodeURIComponent(id)}`, method: 'PATCH', body }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Apps', id: orgId }],
    }),
    deleteApp: build.mutation<unknown, { orgId: string; id: string }>({
      query: ({ orgId, id }) => ({ url: `${org(orgId)}/apps/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Apps', id: orgId }],
    }),
    routeApp: build.mutation<{ app: App }, { orgId: string; id: string; routing: AppRouting }>({
      query: ({ orgId, id, routing }) => ({ url: `${org(orgId)}/apps/${encodeURIComponent(id)}/routing`, method: 'PUT', body: routing }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Apps', id: orgId }],
    }),
    submissionKey: build.mutation<{ key?: string; app: App }, { orgId: string; id: string; revoke?: boolean }>({
      query: ({ orgId, id, revoke }) => ({ url: `${org(orgId)}/apps/${encodeURIComponent(id)}/key`, method: revoke ? 'DELETE' : 'POST' }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Apps', id: orgId }],
    }),
    publishableKey: build.mutation<
      { app: App; publishableKey?: string; snippet?: string },
      { orgId: string; id: string; revoke?: boolean }
    >({
      query: ({ orgId, id, revoke }) => ({
        url: `${org(orgId)}/apps/${encodeURIComponent(id)}/publishableKey`,
        method: revoke ? 'DELETE' : 'POST',
      }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Apps', id: orgId }],
    }),
    appSnippet: build.query<{ publishableKey: string; snippet: string }, { orgId: string; id: string }>({
      query: ({ orgId, id }) => ({ url: `${org(orgId)}/apps/${encodeURIComponent(id)}/snippet`, method: 'GET' }),
    }),
  }),
});

export const {
  useIntegrationsQuery,
  useIntegrationQuery,
  useAccountsQuery,
  useUsageQuery,
  useTargetsQuery,
  useUpdateIntegrationMutation,
  useDeleteIntegrationMutation,
  useCreateDestinationMutation,
  useReuseSourceLoginMutation,
  usePaymentsQuery,
  usePaymentQuery,
  useCreatePaymentMutation,
  useRenamePaymentMutation,
  useUpdatePaymentMutation,
  useDeletePaymentMutation,
  useAppsQuery,
  useAppQuery,
  useCreateAppMutation,
  useUpdateAppMutation,
  useDeleteAppMutation,
  useRouteAppMutation,
  useSubmissionKeyMutation,
  useLazyAppSnippetQuery,
  usePublishableKeyMutation,
} = integrationsApi;
