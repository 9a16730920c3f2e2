import { mixpanelIngestionUrl } from '@/lib/server/connectors/mixpanel/config';
import { mixpanelSessionOf } from '@/lib/server/connectors/mixpanel/session';
import { requestJson } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Session } from '@/lib/server/connectors/types';

/**
 * Mixpanel's Import API (`POST /import?strict=1&project_id=…`), shared by conversions and, next,
 * the ad-data sync's 'Ad Data' events. Mixpanel keeps one copy of events whose name, distinct_id,
 * time and $insert_id all match, so sending again is safe when those four stay the same.
 */

/** How many events Mixpanel takes in one import request (and at most 10 MB of them). */
export const MAX_IMPORT_EVENTS = 2000;

/** One event in Mixpanel's import format: time in ms, `$insert_id` ≤ 36 characters of [A-Za-z0-9-]. */
export interface MixpanelEvent {
  event: string;
  properties: { time: number; distinct_id: string; $insert_id: string } & Record<string, unknown>;
}

/** An event Mixpanel refused while importing the others (strict mode's `failed_records`). */
export interface FailedRecord {
  /** Its position in the request. */
  index: number;
  field: string;
  message: string;
}

interface ImportBody {
  code?: number;
  error?: string;
  status?: string;
  num_records_imported?: number;
  failed_records?: Array<{ index?: number; field?: string; message?: string }>;
}

/**
 * What a refused import means for the caller: a 401 is the service account refused (its secret
 * revoked, or its role on the project lowered), which only reconnecting fixes; 429 is Mixpanel's
 * ingestion limit; 5xx may pass later; anything else (413 too large, a 400 without per-record
 * failures) is the request itself, and smaller requests may pass.
 */
export function importError(status: number, body: ImportBody): PlatformError {
  if (status === 401)
    return new PlatformError(
      'mixpanel',
      'needs_reauth',
      'Mixpanel no longer accepts this service account for the project: its secret was revoked or its role changed.',
    );
  if (status === 429)
    return new PlatformError('mixpanel', 'rate_limited', 'Mixpanel is rate limiting this project. Try again in a minute.');
  if (status >= 500) {
    console.error('[platforms] mixpanel transient error', { status, error: body.error });
    return new PlatformError('mixpanel', 'retryable', 'Mixpanel had a temporary problem. Try again in a minute.');
  }
  if (status === 403) return new PlatformError('mixpanel', 'forbidden', `Mixpanel refused access: ${body.error ?? 'forbidden'}`);
  console.error('[platforms] mixpanel import refused', { status, error: body.error });
  return new PlatformError('mixpanel', 'invalid', `Mixpanel refused the request: ${body.error ?? `HTTP ${status}`}`);
}

/**
 * Imports events into the session's project, in strict mode. Resolves with the events Mixpanel
 * refused (every other one is imported: a strict 400 is a partial success); throws a PlatformError
 * when the request failed as a whole.
 */
export async function importEvents(session: Session, events: MixpanelEvent[]): Promise<FailedRecord[]> {
  const { accessToken, projectId, residency } = mixpanelSessionOf(session);
  const query = new URLSearchParams({ strict: '1', project_id: projectId });
  const { status, body } = await requestJson('mixpanel', `${mixpanelIngestionUrl(residency)}/import?${query}`, {
    method: 'POST',
    headers: { Authorization: `Basic ${accessToken}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(events),
  });
  if (status === 200) return [];
  const answer = body as ImportBody;
  if (status === 400 && Array.isArray(answer.failed_records) && answer.failed_records.length > 0) {
    return answer.failed_records
      .filter((record) => typeof record.index === 'number' && record.index >= 0 && record.index < events.length)
      .map((record) => ({ index: record.index!, field: record.field ?? '', message: record.message ?? 'Refused by Mixpanel' }));
  }
  throw importError(status, answer);
}
