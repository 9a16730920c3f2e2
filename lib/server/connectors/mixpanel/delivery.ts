import { sha256Hex } from '@/lib/server/sha256';
import { importEvents, MAX_IMPORT_EVENTS, type MixpanelEvent } from '@/lib/server/connectors/mixpanel/import';
import { mixpanelSessionOf } from '@/lib/server/connectors/mixpanel/session';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Delivery } from '@/lib/server/connectors/types';
import { identifierFields, type ConversionEvent, type RowOutcome } from '@/lib/shared/conversions/event';

/**
 * Conversions into a Mixpanel project through the Import API, as events named after the
 * conversion. Mixpanel imports the valid events of a request and names the others, so one bad row
 * never sinks a batch; `check` still holds back what Mixpanel is known to refuse.
 */

/** Mixpanel refuses events more than an hour ahead of its clock; the margin covers our clock skew and the time until sending. */
const MAX_AHEAD_SECONDS = 3600 - 10 * 60;
/** Mixpanel refuses events dated before 1971-01-01. */
const EARLIEST_SECONDS = Date.UTC(1971, 0, 1) / 1000;

/**
 * Mixpanel's `$insert_id` for an event: the first 32 hex digits of the SHA-256 of its id, so a
 * replayed event is the same Mixpanel event (fits Mixpanel's ≤ 36 characters of [A-Za-z0-9-]).
 */
export const insertIdOf = (eventId: string) => sha256Hex(eventId).slice(0, 32);

/**
 * One conversion as a Mixpanel event. The user is the hashed external id, else the hashed email;
 * with neither, distinct_id is '' (Mixpanel keeps the event, outside per-user analysis). Personal
 * identifiers go only as the SHA-256 hashes ingest made; click ids and the page as they came.
 */
export function toMixpanelEvent(event: ConversionEvent): MixpanelEvent {
  const { user, context } = event;
  const present = (entries: Record<string, string | undefined>) =>
    Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined && value !== ''));
  return {
    event: event.name,
    properties: {
      time: event.time * 1000,
      distinct_id: user.externalId ?? user.email ?? '',
      $insert_id: insertIdOf(event.id),
      source: 'signalbridge',
      event_id: event.id,
      ...(event.value !== null ? { value: event.value } : {}),
      ...(event.currency ? { currency: event.currency } : {}),
      ...present({
        ...identifierFields(event),
        $current_url: context.pageUrl,
        // Mixpanel's geolocation property; without it Mixpanel would place the event at our server.
        ip: context.ip,
      }),
    },
  };
}

export const mixpanelDelivery: Delivery = {
  maxBatch: MAX_IMPORT_EVENTS,
  check(event, now) {
    if (event.time > Math.floor(now.getTime() / 1000) + MAX_AHEAD_SECONDS)
      return 'In the future: Mixpanel refuses events dated more than an hour ahead';
    if (event.time < EARLIEST_SECONDS) return 'Dated before 1971: Mixpanel refuses events before 1971-01-01';
    return null;
  },
  /**
   * One import per batch (more when it passes 2 MB, or Mixpanel answers 413) into the project of
   * the session's service account (the caller's target is that project). Rows Mixpanel names in
   * `failed_records` are rejected with its words; every other row was imported.
   */
  async send(session, _account, target, events) {
    const { projectId } = mixpanelSessionOf(session);
    // A service account is checked against one project: sending elsewhere would read as a dead login.
    if (target.id !== projectId)
      throw new PlatformError(
        'mixpanel',
        'forbidden',
        `This Mixpanel login is for project ${projectId}, not ${target.id}. Pick the destination of that project.`,
      );
    const { failed: refused } = await importEvents(session, events.map(toMixpanelEvent));
    const failed = new Map(refused.map((record) => [record.index, record.message]));
    return events.map((event, index): RowOutcome => {
      const reason = failed.get(index);
      return reason === undefined ? { id: event.id, status: 'delivered' } : { id: event.id, status: 'rejected', reason };
    });
  },
};
