import { importEvents, MAX_IMPORT_EVENTS, type MixpanelEvent } from '@/lib/server/connectors/mixpanel/import';
import { mixpanelSessionOf } from '@/lib/server/connectors/mixpanel/session';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { AdDataSlice, Session, WriteResult, WriteTarget } from '@/lib/server/connectors/types';
import { adRowKey, type AdRow } from '@/lib/shared/connections/rows';
import { UTM_SOURCE } from '@/lib/shared/integrations/platforms';
import { sha256Hex } from '@/lib/server/sha256';

/**
 * Ad performance into a Mixpanel project as `Ad Data` events (Mixpanel's ad-spend convention: one
 * event per object and day, with source, campaign, cost, clicks, impressions and utm_* properties),
 * through the Import API. Each row's four dedup values (event name, distinct_id '', the day at 00:00
 * UTC, and an $insert_id hashed from the connection and the row's key) never change, so a restated
 * day replaces the earlier copy in Mixpanel's queries. Mixpanel cannot delete an event: a row that
 * disappears from a later run stays as it was.
 */

export const AD_DATA_EVENT = 'Ad Data';

/**
 * The row's `$insert_id`: 36 hex digits of the SHA-256 of the connection id and the row's key
 * (Mixpanel's ≤ 36 characters of [A-Za-z0-9-]); the same for every run of the same row.
 */
export const adDataInsertId = (connectionId: string, row: AdRow, key = adRowKey(row)) => sha256Hex(`${connectionId}\n${key}`).slice(0, 36);

/** The parts of a row's object that only some levels have: left out of the event when the level has none. */
const OPTIONAL_FIELDS = ['ad_group_id', 'ad_group_name', 'ad_id', 'ad_name'] as const;

/** One row as an `Ad Data` event: at 00:00 UTC of its day, without a user (distinct_id ''). Runs per row: no entries arrays. */
export function toAdDataEvent(connectionId: string, row: AdRow, key = adRowKey(row)): MixpanelEvent {
  const properties: MixpanelEvent['properties'] = {
    time: Date.parse(`${row.date}T00:00:00Z`),
    distinct_id: '',
    $insert_id: adDataInsertId(connectionId, row, key),
    source: row.platform,
    account_id: row.account_id,
    account_name: row.account_name,
    campaign_id: row.campaign_id,
    campaign_name: row.campaign_name,
    date: row.date,
    currency: row.currency,
    cost: row.spend,
    clicks: row.clicks,
    impressions: row.impressions,
    conversions: row.conversions,
    conversion_value: row.conversion_value,
    utm_source: UTM_SOURCE[row.platform],
    utm_campaign: row.campaign_name,
    connection_id: connectionId,
  };
  for (const field of OPTIONAL_FIELDS) if (row[field] !== null) properties[field] = row[field];
  return { event: AD_DATA_EVENT, properties };
}

/**
 * Imports the slice's rows, 2,000 per request or fewer when they pass 2 MB (one row per key, the last
 * given wins). Rows Mixpanel refuses come back in `failed` with its words; a request refused as a
 * whole throws the import's PlatformError (needs_reauth, rate_limited, retryable, invalid), and
 * running it again is safe.
 */
export async function replaceAdData(session: Session, target: WriteTarget, slice: AdDataSlice, rows: AdRow[]): Promise<WriteResult> {
  const { projectId } = mixpanelSessionOf(session);
  // A service account is checked against one project: writing elsewhere would read as a dead login.
  if (target.projectId !== projectId)
    throw new PlatformError(
      'mixpanel',
      'forbidden',
      `This Mixpanel login is for project ${projectId}, not ${target.projectId}. Pick the destination of that project.`,
    );
  const byKey = new Map<string, AdRow>();
  for (const row of rows) byKey.set(adRowKey(row), row);
  const unique = [...byKey];
  const result: WriteResult = { written: 0, calls: 0, failed: [] };
  for (let start = 0; start < unique.length; start += MAX_IMPORT_EVENTS) {
    const chunk = unique.slice(start, start + MAX_IMPORT_EVENTS);
    const { failed: refused, requests } = await importEvents(
      session,
      chunk.map(([key, row]) => toAdDataEvent(slice.connectionId, row, key)),
    );
    result.calls += requests;
    result.written += chunk.length - refused.length;
    result.failed.push(...refused.map((record) => ({ key: chunk[record.index]![0], message: record.message })));
  }
  return result;
}
