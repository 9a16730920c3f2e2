import type {
  DeliveryLogAnswer,
  DeliveryRowDetail,
  ColumnMapping,
  Conversion,
  DeliveryCounts,
  DeliveryHour,
  DeliveryRow,
  WarehouseSource,
} from '@/lib/shared/conversions/conversion';
import type { CreateConversionInput, UpdateConversionInput } from '@/lib/shared/schemas/conversions';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { ConversionQuality } from '@/lib/shared/conversions/quality';
import { api } from '@/store/api';

const conversionsUrl = (orgId: string) => `/api/orgs/${encodeURIComponent(orgId)}/conversions`;
const conversionUrl = (orgId: string, id: string) => `${conversionsUrl(orgId)}/${encodeURIComponent(id)}`;

export type ConversionListItem = Conversion & { last24h: DeliveryCounts };

/** One conversion as its configuration page shows it: hourly counts (48 h), parked events, the last 24 hours. */
export interface ConversionDetail {
  conversion: Conversion;
  hours: DeliveryHour[];
  parked: { held: number; failed: number };
  last24h: DeliveryCounts;
}

/** The first rows of a BigQuery or Mixpanel source, mapped and hashed as they will be sent (nothing saved). */
export interface WarehousePreview {
  /** What the source gives to map from: BigQuery's columns (with types), Mixpanel's properties. */
  columns: Array<{ name: string; type: string }>;
  /** The mapping the rows were mapped with (with `suggest`, the empty fields filled from usual column names). */
  mapping: { columns: ColumnMapping; cursorColumn: string };
  /** BigQuery: what a read of everything processes now (its dry run). */
  bytesProcessed: number | null;
  rows: Array<{ id: string; event: ConversionEvent | null; problem: string | null }>;
}

interface ConversionArgs {
  orgId: string;
  id: string;
}

// One tag for an organization's list, one per conversion (its detail) and one per conversion's log.
const listTag = (orgId: string) => ({ type: 'Conversions' as const, id: orgId });
const itemTag = ({ orgId, id }: ConversionArgs) => ({ type: 'Conversions' as const, id: `${orgId}/${id}` });
const logTag = ({ orgId, id }: ConversionArgs) => ({ type: 'Deliveries' as const, id: `${orgId}/${id}` });
const qualityTag = ({ orgId, id }: ConversionArgs) => ({ type: 'Quality' as const, id: `${orgId}/${id}` });

/** Conversions, their delivery log, test events and retries; mutations refresh what they change. */
export const conversionsApi = api.enhanceEndpoints({ addTagTypes: ['Conversions', 'Deliveries', 'Quality'] }).injectEndpoints({
  endpoints: (build) => ({
    conversions: build.query<ConversionListItem[], string>({
      query: (orgId) => ({ url: conversionsUrl(orgId), method: 'GET' }),
      transformResponse: (response: { conversions: ConversionListItem[] }) => response.conversions,
      providesTags: (_result, _error, orgId) => [listTag(orgId)],
    }),
    conversion: build.query<ConversionDetail, ConversionArgs>({
      query: ({ orgId, id }) => ({ url: conversionUrl(orgId, id), method: 'GET' }),
      providesTags: (_result, _error, args) => [itemTag(args)],
    }),
    // With an event id no delivery holds: whether the conversion's event-name filter left it out.
    // With a day (YYYY-MM-DD, of the counted days' zone): that day's platform calls.
    deliveries: build.query<DeliveryLogAnswer, ConversionArgs & { eventId?: string; limit?: number; day?: string }>({
      query: ({ orgId, id, eventId, limit = 20, day }) => {
        const params = new URLSearchParams({ limit: String(limit), ...(eventId ? { eventId } : {}), ...(day ? { day } : {}) });
        return { url: `${conversionUrl(orgId, id)}/deliveries?${params}`, method: 'GET' };
      },
      providesTags: (_result, _error, args) => [logTag(args)],
    }),
    // A row opened in the log: read once, when opened (records never change).
    deliveryRow: build.query<DeliveryRowDetail, ConversionArgs & { deliveryId: string; eventId: string }>({
      query: ({ orgId, id, deliveryId, eventId }) => ({
        url: `${conversionUrl(orgId, id)}/deliveries/${encodeURIComponent(deliveryId)}/rows/${encodeURIComponent(eventId)}`,
        method: 'GET',
      }),
    }),
    // The row with the visitor's IP address and browser in clear (owners and admins; the server notes each reveal).
    revealDeliveryRow: build.mutation<DeliveryRowDetail, ConversionArgs & { deliveryId: string; eventId: string }>({
      query: ({ orgId, id, deliveryId, eventId }) => ({
        url: `${conversionUrl(orgId, id)}/deliveries/${encodeURIComponent(deliveryId)}/rows/${encodeURIComponent(eventId)}/reveal`,
        method: 'POST',
        body: {},
      }),
    }),
    // Match quality asks the platform for its own measure too: read on opening the page and on Refresh, not polled.
    matchQuality: build.query<ConversionQuality, ConversionArgs>({
      query: ({ orgId, id }) => ({ url: `${conversionUrl(orgId, id)}/quality`, method: 'GET' }),
      providesTags: (_result, _error, args) => [qualityTag(args)],
    }),
    createConversion: build.mutation<{ conversion: Conversion }, { orgId: string; body: CreateConversionInput }>({
      query: ({ orgId, body }) => ({ url: conversionsUrl(orgId), body }),
      invalidatesTags: (_result, _error, { orgId }) => [listTag(orgId)],
    }),
    updateConversion: build.mutation<{ conversion: Conversion }, ConversionArgs & { changes: UpdateConversionInput }>({
      query: ({ orgId, id, changes }) => ({ url: conversionUrl(orgId, id), method: 'PATCH', body: changes }),
      invalidatesTags: (_result, _error, args) => [listTag(args.orgId), itemTag(args), qualityTag(args)],
    }),
    // The detail is not refreshed: it is gone, and the page leaves for the list.
    deleteConversion: build.mutation<unknown, ConversionArgs>({
      query: ({ orgId, id }) => ({ url: conversionUrl(orgId, id), method: 'DELETE' }),
      invalidatesTags: (_result, _error, { orgId }) => [listTag(orgId)],
    }),
    sendTestEvent: build.mutation<{ row: DeliveryRow }, ConversionArgs & { testEventCode?: string }>({
      query: ({ orgId, id, testEventCode }) => ({ url: `${conversionUrl(orgId, id)}/test`, body: testEventCode ? { testEventCode } : {} }),
      invalidatesTags: (_result, _error, args) => [logTag(args)],
    }),
    // A mutation, not a query: it runs on request with what the form holds, and is never cached.
    previewWarehouseSource: build.mutation<
      WarehousePreview,
      { orgId: string; source: WarehouseSource; suggest?: boolean; sendsTo?: string }
    >({
      query: ({ orgId, source, suggest, sendsTo }) => ({ url: `${conversionsUrl(orgId)}/preview`, body: { source, suggest, sendsTo } }),
    }),
    readNow: build.mutation<{ requested: true }, ConversionArgs>({
      query: ({ orgId, id }) => ({ url: `${conversionUrl(orgId, id)}/read` }),
      invalidatesTags: (_result, _error, args) => [itemTag(args)],
    }),
    retryConversion: build.mutation<{ replayed: number }, ConversionArgs>({
      query: ({ orgId, id }) => ({ url: `${conversionUrl(orgId, id)}/retry` }),
      invalidatesTags: (_result, _error, args) => [listTag(args.orgId), itemTag(args), logTag(args)],
    }),
  }),
});

export const {
  useConversionsQuery,
  useConversionQuery,
  useDeliveriesQuery,
  useDeliveryRowQuery,
  useRevealDeliveryRowMutation,
  useMatchQualityQuery,
  useCreateConversionMutation,
  useUpdateConversionMutation,
  useDeleteConversionMutation,
  useSendTestEventMutation,
  useRetryConversionMutation,
  usePreviewWarehouseSourceMutation,
  useReadNowMutation,
} = conversionsApi;
