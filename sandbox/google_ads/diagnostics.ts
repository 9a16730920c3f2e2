/**
 * The Data Manager API's upload diagnostics: `GET /v1/requestStatus:retrieve` reports what each accepted
 * ingestion (sandbox/google_ads/delivery.ts) left per destination.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accountType, refused, rpcError, scopeInsufficient, SCOPE, unauthenticated } from '@/sandbox/google_ads/dataManager';
import { json } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

/** What one accepted request left at one destination: its events, and those whose user data was denied consent. */
export interface DestinationStatus {
  destination: Json;
  records: number;
  deniedConsent: number;
}

/** What each accepted request left per destination, for `requestStatus:retrieve` (the sandbox keeps the last 10,000). */
const requestStatuses = new Map<string, DestinationStatus[]>();
const MAX_REQUEST_STATUSES = 10_000;

/** Keeps what an accepted request left per destination (the oldest forgotten past 10,000 requests). */
export function keepRequestStatus(requestId: string, statuses: DestinationStatus[]) {
  requestStatuses.set(requestId, statuses);
  if (requestStatuses.size > MAX_REQUEST_STATUSES) requestStatuses.delete(requestStatuses.keys().next().value!);
}

/** A destination as the API writes it back (proto3 JSON names). */
function destinationJson(destination: Json): Json {
  const account = (value: unknown) => {
    const found = value as Json | undefined;
    return found ? { accountType: accountType(found), accountId: String(found.account_id) } : undefined;
  };
  return {
    ...(destination.reference ? { reference: destination.reference } : {}),
    ...(destination.login_account ? { loginAccount: account(destination.login_account) } : {}),
    operatingAccount: account(destination.operating_account),
    productDestinationId: String(destination.product_destination_id),
  };
}

/**
 * `GET /v1/requestStatus:retrieve?requestId=…` (RetrieveRequestStatusResponse): per destination its
 * status, the events ingested (IngestEventsStatus.record_count, an int64 as a JSON string) and the
 * records Google could not use with their ProcessingErrorReason. A request id the sandbox never
 * answered is NOT_FOUND.
 */
export async function retrieveRequestStatus(req: IncomingMessage, res: ServerResponse, url: URL, store: SandboxStore) {
  const caller = store.bearerToken(req, url, 'google');
  if (!caller) return unauthenticated(res);
  if (!caller.scope.split(' ').includes(SCOPE)) return scopeInsufficient(res);
  const requestId = url.searchParams.get('requestId') ?? url.searchParams.get('request_id') ?? '';
  if (!requestId)
    return refused(res, [{ field: 'request_id', description: 'Required field is missing.', reason: 'REQUIRED_FIELD_MISSING' }]);
  const statuses = requestStatuses.get(requestId);
  if (!statuses) return rpcError(res, 404, 'NOT_FOUND', `Request ${requestId} was not found.`);
  return json(res, 200, {
    requestStatusPerDestination: statuses.map(({ destination, records, deniedConsent }) => ({
      destination: destinationJson(destination),
      requestStatus: deniedConsent === 0 ? 'SUCCESS' : deniedConsent < records ? 'PARTIAL_SUCCESS' : 'FAILED',
      ...(deniedConsent
        ? { errorInfo: { errorCounts: [{ recordCount: String(deniedConsent), reason: 'PROCESSING_ERROR_REASON_DENIED_CONSENT' }] } }
        : {}),
      eventsIngestionStatus: { recordCount: String(records - deniedConsent) },
    })),
  });
}
