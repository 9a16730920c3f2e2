import type { ConversionReconciliation, ReconciliationRow } from '@/lib/shared/conversions/reconciliation';
import { api } from '@/store/api';

const orgUrl = (orgId: string) => `/api/orgs/${encodeURIComponent(orgId)}`;

interface ConversionArgs {
  orgId: string;
  id: string;
}

// One tag per organization's list, one per conversion's days.
const listTag = (orgId: string) => ({ type: 'Reconciliation' as const, id: orgId });
const itemTag = ({ orgId, id }: ConversionArgs) => ({ type: 'Reconciliation' as const, id: `${orgId}/${id}` });

/** "Counted by the platform": a conversion's days, the organization's list, and the alert threshold. */
export const reconciliationApi = api.enhanceEndpoints({ addTagTypes: ['Reconciliation'] }).injectEndpoints({
  endpoints: (build) => ({
    conversionReconciliation: build.query<ConversionReconciliation, ConversionArgs>({
      query: ({ orgId, id }) => ({ url: `${orgUrl(orgId)}/conversions/${encodeURIComponent(id)}/reconciliation`, method: 'GET' }),
      transformResponse: (response: { reconciliation: ConversionReconciliation }) => response.reconciliation,
      providesTags: (_result, _error, args) => [itemTag(args)],
    }),
    reconciliation: build.query<ReconciliationRow[], string>({
      query: (orgId) => ({ url: `${orgUrl(orgId)}/reconciliation`, method: 'GET' }),
      transformResponse: (response: { conversions: ReconciliationRow[] }) => response.conversions,
      providesTags: (_result, _error, orgId) => [listTag(orgId)],
    }),
    saveCountedThreshold: build.mutation<{ threshold: number }, ConversionArgs & { threshold: number }>({
      query: ({ orgId, id, threshold }) => ({
        url: `${orgUrl(orgId)}/conversions/${encodeURIComponent(id)}/reconciliation`,
        method: 'PUT',
        body: { threshold },
      }),
      // The list shows each conversion against its threshold too.
      invalidatesTags: (_result, _error, args) => [itemTag(args), listTag(args.orgId)],
    }),
  }),
});

export const { useConversionReconciliationQuery, useReconciliationQuery, useSaveCountedThresholdMutation } = reconciliationApi;
