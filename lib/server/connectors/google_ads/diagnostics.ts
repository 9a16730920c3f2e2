import { googleAdsConfig } from '@/lib/server/connectors/google_ads/config';
import { googleAdsError } from '@/lib/server/connectors/google_ads/errors';
import { bearer, requestJson } from '@/lib/server/connectors/http';
import type { PlatformMeasure } from '@/lib/shared/conversions/quality';

/**
 * Google's own word on what it did with a request we sent: Data Manager's request diagnostics
 * (ingestion_service.proto, RetrieveRequestStatus; request_status_per_destination.proto and
 * processing_errors.proto in @google-ads/datamanager), in proto3 JSON:
 *
 *   GET {dataManager}/v1/requestStatus:retrieve?requestId={id}
 *   → { requestStatusPerDestination: [{ destination, requestStatus: 'SUCCESS' | 'PROCESSING' | 'FAILED' |
 *        'PARTIAL_SUCCESS' | 'REQUEST_STATUS_UNKNOWN', errorInfo: { errorCounts: [{ recordCount, reason }] },
 *        warningInfo: { warningCounts: [{ recordCount, reason }] }, eventsIngestionStatus: { recordCount } }] }
 *
 * int64 counts come as strings in proto3 JSON; both forms are read. We send one destination per
 * request, so the first status is ours.
 */

const count = (value: unknown): number | null => {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
};

function reasons(value: unknown, field: 'errorCounts' | 'warningCounts'): Array<{ reason: string; records: number }> {
  const items = (value as Record<string, unknown> | undefined)?.[field];
  if (!Array.isArray(items)) return [];
  return items.map((item: Record<string, unknown>) => ({
    reason: typeof item?.reason === 'string' ? item.reason : 'PROCESSING_ERROR_REASON_UNSPECIFIED',
    records: count(item?.recordCount) ?? 0,
  }));
}

export function parseRequestStatus(body: Record<string, unknown>, request: { id: string; at: string | null }): PlatformMeasure {
  const statuses = body.requestStatusPerDestination;
  const first = Array.isArray(statuses) ? (statuses[0] as Record<string, unknown> | undefined) : undefined;
  if (!first) return { status: 'not_reported', message: 'Google Ads has no diagnostics for the last request yet.' };
  return {
    status: 'reported',
    kind: 'request_diagnostics',
    requestId: request.id,
    sentAt: request.at,
    requestStatus: typeof first.requestStatus === 'string' ? first.requestStatus : 'REQUEST_STATUS_UNKNOWN',
    records: count((first.eventsIngestionStatus as Record<string, unknown> | undefined)?.recordCount),
    errors: reasons(first.errorInfo, 'errorCounts'),
    warnings: reasons(first.warningInfo, 'warningCounts'),
  };
}

/** Reads the diagnostics of one ingest request (its `requestId`) with the destination's login. */
export async function readRequestStatus(accessToken: string, request: { id: string; at: string | null }): Promise<PlatformMeasure> {
  const url = `${googleAdsConfig().dataManagerUrl}/requestStatus:retrieve?${new URLSearchParams({ requestId: request.id })}`;
  const { status, body } = await requestJson('google_ads', url, { headers: bearer(accessToken) });
  // An id Google no longer (or not yet) knows: nothing to report, not a failure.
  if (status === 404) return { status: 'not_reported', message: 'Google Ads has no diagnostics for the last request yet.' };
  if (status !== 200) throw googleAdsError(status, body);
  return parseRequestStatus(body, request);
}
