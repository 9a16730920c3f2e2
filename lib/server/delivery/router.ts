import type { Conversion } from '@/lib/shared/conversions/conversion';
import { connectorFor } from '@/lib/server/connectors/registry';
import type { Item } from '@/lib/server/delivery/batch';
import { deliverBatch } from '@/lib/server/delivery/deliver';
import { takesEvent } from '@/lib/server/delivery/mapping';
import { createFilteredNotes } from '@/lib/server/delivery/filteredNotes';
import { createGathering } from '@/lib/server/delivery/gathering';
import { createLanes } from '@/lib/server/delivery/lanes';
import { createFairQuota } from '@/lib/server/delivery/quota';
import { createSender } from '@/lib/server/delivery/sendBatch';
import { createTicketBook, type Ticket } from '@/lib/server/delivery/tickets';
import { parseConversionMessage, publishConversions, type ConversionAttributes, type UnreadableEvent } from '@/lib/server/queue/pubsub';
import { conversionById, conversionsOfSource } from '@/lib/server/repos/conversions';
import { recordDeliveries, type CounterSink } from '@/lib/server/repos/deliveryLog';
import { recordFiltered } from '@/lib/server/repos/deliveryLog';
import { createDeliveryCounters, type DeliveryCounters } from '@/lib/server/repos/deliveryCounters';
import { noteDeliveries } from '@/lib/server/alerts/delivery';
import { errorFields, eventIdsOf, labels, log } from '@/lib/server/log';
import type { QueueMessage } from '@/lib/server/queue/message';

/**
 * The delivery worker's core, between Pub/Sub messages and platform calls. Each message (up to 500
 * events) is routed to the conversions of its source that take it; events are gathered per conversion up
 * to the platform's maximum batch, or for a short linger; a message is acknowledged only once every
 * conversion it went to has recorded its outcome. A batch whose outcome could not be recorded is set
 * aside: its events are published again for that conversion alone, so the rest of their messages is not
 * sent again. An event set aside that fails again leaves its message unacknowledged, and Pub/Sub delivers
 * it again after a backoff, then dead-letters it: at-least-once, and the platforms deduplicate by event id.
 *
 * Its parts: a message's ticket (tickets.ts), events gathered into batches (gathering.ts), each destination's
 * lane (lanes.ts: a platform that hangs holds only its own), the send (sendBatch.ts), batches published again
 * to wait or after a failure (setAside.ts), and the notes of events a filter left out (filteredNotes.ts).
 * Platforms with a quota shared by every tenant (Google's Data Manager) take a turn from a fair quota first
 * (quota.ts).
 *
 * State here is only what is in flight and the counters not yet written (deliveryCounters.ts); conversions
 * are re-read every few seconds. Two workers on one subscription share nothing but Pub/Sub and Firestore.
 */

export interface RouterOptions {
  /** How long a partial batch waits for more events. */
  lingerMs?: number;
  /** Platform calls in flight at once per destination (its lane). */
  laneConcurrency?: number;
  /** Events a lane may hold in hand (in line, sending, waiting) before its next batches are set aside to wait. */
  laneMaxEvents?: number;
  /** Requests a minute per platform whose quota every tenant shares (Data Manager: 300 per Cloud project). */
  sharedQuotas?: Partial<Record<Conversion['destination']['platform'], number>>;
  /** Where delivery counters are summed before they are written (a test gives its own; default: Firestore). */
  counters?: DeliveryCounters;
  /** How long a conversion's settings are reused before being read again. */
  cacheMs?: number;
  deliver?: typeof deliverBatch;
  /** Where conversions are read (Firestore; a test gives its own). */
  lookup?: { bySource: typeof conversionsOfSource; byId: typeof conversionById };
  /** Where a failed batch's events are published again for their conversion (Pub/Sub; a test gives its own). */
  setAside?: typeof publishConversions;
  /** Where events that cannot be read are logged as not sent, every conversion's record of a message at once (a test gives its own). */
  recordUnreadable?: (...args: Parameters<typeof recordDeliveries>) => Promise<unknown>;
  /** Where events a conversion's event-name filter leaves out are noted, so the log can say why (a test gives its own). */
  recordFiltered?: typeof recordFiltered;
}

/**
 * Events one delivery worker holds in hand at most, unless WORKER_MAX_EVENTS says otherwise: room for four
 * lanes' full share each (below), about 20-40 MB of events.
 */
export const WORKER_MAX_EVENTS_DEFAULT = 20_000;
/**
 * Routes each message to its conversions, and drains on a shutdown. The parts share nothing but the tickets
 * and the options read here.
 */
export function createConversionRouter(options: RouterOptions = {}) {
  const lingerMs = options.lingerMs ?? Number(process.env.DELIVERY_LINGER_MS || 1000);
  const configuredSlots = options.laneConcurrency ?? (Number(process.env.DELIVERY_LANE_CONCURRENCY) || null);
  // A quarter of what the worker holds in hand (WORKER_MAX_EVENTS): a stuck lane leaves the rest to the others.
  const laneMaxEvents = options.laneMaxEvents ?? Number(process.env.WORKER_MAX_EVENTS || WORKER_MAX_EVENTS_DEFAULT) / 4;
  const cacheMs = options.cacheMs ?? 5000;
  const lookup = options.lookup ?? { bySource: conversionsOfSource, byId: conversionById };
  const publish = options.setAside ?? publishConversions;
  const recordNotSent = options.recordUnreadable ?? recordDeliveries;
  // A router given its own delivery (a unit test) writes no counters of its own. A conversion's alerts are
  // evaluated once its counters are written (a quiet burst of refusals is seen then, not missed before).
  const counters: DeliveryCounters | undefined =
    options.counters ?? (options.deliver ? undefined : createDeliveryCounters({ onWritten: noteDeliveries }));
  const sink: CounterSink | undefined = counters;
  const quotas = new Map(
    Object.entries(options.sharedQuotas ?? { google_ads: Number(process.env.DATAMANAGER_REQUESTS_PER_MINUTE || 300) }).map(
      ([platform, perMinute]) => [platform, createFairQuota(perMinute!)],
    ),
  );
  const maxBatchOf = (conversion: Conversion) => connectorFor(conversion.destination.platform).deliver?.maxBatch ?? 100;

  const tickets = createTicketBook();
  const { settle } = tickets;
  const filtered = createFilteredNotes({ record: options.recordFiltered ?? recordFiltered, settle });
  const send = createSender({ byId: lookup.byId, deliver: options.deliver ?? deliverBatch, sink, quotas, publish, settle });
  const lanes = createLanes({ configuredSlots, laneMaxEvents, maxBatchOf, send, publish, settle });
  const gathering = createGathering({ lingerMs, maxBatchOf, send: (batch) => lanes.enqueue(batch) });
  const cache = new Map<string, { conversions: Promise<Conversion[]>; until: number }>();
  const sweeping = setInterval(() => {
    filtered.sweep();
    lanes.sweep();
  }, 1000);
  sweeping.unref?.();

  /**
   * The conversions a message may go to. A message that names its conversion (a replay, a warehouse
   * read) is looked up by id: one created a moment ago, or the 51st of a source, is found all the same.
   */
  function conversionsFor(orgId: string, source: string, conversionId?: string): Promise<Conversion[]> {
    const key = conversionId ? `${orgId}#${conversionId}` : `${orgId}|${source}`;
    const cached = cache.get(key);
    if (cached && cached.until > Date.now()) return cached.conversions;
    const conversions = conversionId ? lookup.byId(orgId, conversionId) : lookup.bySource(orgId, source);
    cache.set(key, { conversions, until: Date.now() + cacheMs });
    conversions.catch(() => cache.delete(key));
    return conversions;
  }

  /** Events that do not follow the schema: never dropped in silence, each conversion that would take them logs them as not sent. */
  async function recordUnreadable(
    message: QueueMessage,
    unreadable: UnreadableEvent[],
    conversions: Conversion[],
    attributes: ConversionAttributes,
  ) {
    log.error(
      {
        component: 'worker',
        ...labels({ org: attributes.org }),
        messageId: message.id,
        count: unreadable.length,
        ...eventIdsOf(unreadable),
      },
      'events that do not follow the schema logged as not sent',
    );
    const records = conversions.flatMap((conversion) => {
      // An event whose name cannot be read is logged by every conversion: none can tell it was not theirs.
      const rows = unreadable
        .filter((item) => attributes.conversion || !item.name || takesEvent(conversion.mapping, { name: item.name }))
        .map((item) => ({ id: item.id, status: 'not_sent' as const, reason: item.reason }));
      return rows.length > 0 ? [{ conversionId: conversion.id, record: { test: false, latencyMs: null, rows, parked: [] } }] : [];
    });
    if (records.length > 0) await recordNotSent(attributes.org, records, sink);
  }

  async function route(message: QueueMessage) {
    // A batch set aside to wait: given back to Pub/Sub until its time (it holds no room meanwhile), unread.
    const notBefore = Number(/^\d{1,15}$/.test(message.attributes.not_before ?? '') ? message.attributes.not_before : 0);
    if (notBefore > Date.now() + 500) return message.nack(Math.ceil((notBefore - Date.now()) / 1000));
    const parsed = parseConversionMessage(message.data, message.attributes);
    if (!parsed) {
      log.error({ component: 'worker', messageId: message.id }, 'message holding no conversion events dropped');
      return message.ack();
    }
    const { events, unreadable, attributes } = parsed;
    const attempt = Number(attributes.attempt ?? 0);
    const conversions = (await conversionsFor(attributes.org, attributes.source, attributes.conversion)).filter((conversion) =>
      attributes.conversion ? conversion.id === attributes.conversion : conversion.status === 'active',
    );
    if (unreadable.length > 0) await recordUnreadable(message, unreadable, conversions, attributes);
    // One ticket for the message: it is settled once every event has been recorded by every conversion it went to.
    const ticket: Ticket = { message, remaining: 0, failed: false };
    for (const conversion of conversions) {
      const taken = attributes.conversion ? events : events.filter((event) => takesEvent(conversion.mapping, event));
      if (!attributes.conversion && taken.length < events.length) filtered.note(attributes.org, conversion, events, message.id, ticket);
      if (taken.length === 0) continue;
      ticket.remaining += taken.length;
      gathering.add(
        attributes.org,
        conversion,
        taken.map((event): Item => ({ event, ticket, attempt })),
      );
    }
    if (ticket.remaining === 0) return message.ack();
    tickets.open();
    // Scheduled after every item is in place: a batch sent at once must not settle the ticket early.
    for (const conversion of conversions) {
      gathering.schedule(attributes.org, conversion.id);
      filtered.schedule(attributes.org, conversion);
    }
  }

  return {
    /** Takes one message; never throws (a message it cannot route now is nacked). */
    handle(message: QueueMessage) {
      route(message).catch((error) => {
        log.error({ component: 'worker', messageId: message.id, ...errorFields(error) }, 'could not route a message; it will come again');
        message.nack();
      });
    },
    /**
     * A clean shutdown: sets aside every batch not being sent (gathered, in a lane's line, or waiting for a retry),
     * writes the filtered-out notes, and resolves once the batches being sent are recorded and nothing is in flight.
     */
    async drain() {
      lanes.stop();
      clearInterval(sweeping);
      gathering.flushAll();
      filtered.writeAll();
      lanes.setAsideAll();
      await tickets.idle();
      quotas.forEach((quota) => quota.stop());
      await counters?.stop();
    },
  };
}
