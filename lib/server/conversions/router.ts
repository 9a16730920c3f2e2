import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { connectorFor } from '@/lib/server/connectors/registry';
import { deliverBatch, takesEvent } from '@/lib/server/conversions/deliver';
import { parseConversionMessage, publishConversions } from '@/lib/server/queue/pubsub';
import { conversionById, conversionsOfSource, recordDelivery, recordFiltered } from '@/lib/server/repos/conversions';
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
 * State here is only what is in flight; conversions are re-read every few seconds. Two workers on
 * one subscription share nothing but Pub/Sub and Firestore.
 */

interface Ticket {
  message: QueueMessage;
  remaining: number;
  failed: boolean;
}

interface Pending {
  orgId: string;
  conversion: Conversion;
  items: Array<{ event: ConversionEvent; ticket: Ticket }>;
  timer: NodeJS.Timeout | null;
}

export interface RouterOptions {
  /** How long a partial batch waits for more events. */
  lingerMs?: number;
  /** Platform calls in flight at once, over every conversion. */
  concurrency?: number;
  /** How long a conversion's settings are reused before being read again. */
  cacheMs?: number;
  deliver?: typeof deliverBatch;
  /** Where conversions are read (Firestore; a test gives its own). */
  lookup?: { bySource: typeof conversionsOfSource; byId: typeof conversionById };
  /** Where a failed batch's events are published again for their conversion (Pub/Sub; a test gives its own). */
  setAside?: typeof publishConversions;
  /** Where events that cannot be read are logged as not sent (the delivery log; a test gives its own). */
  record?: typeof recordDelivery;
  /** Where events a conversion's event-name filter leaves out are noted, so the log can say why (a test gives its own). */
  recordFiltered?: typeof recordFiltered;
}

export function createConversionRouter(options: RouterOptions = {}) {
  const lingerMs = options.lingerMs ?? Number(process.env.DELIVERY_LINGER_MS || 1000);
  const concurrency = options.concurrency ?? 8;
  const cacheMs = options.cacheMs ?? 5000;
  const deliver = options.deliver ?? deliverBatch;
  const lookup = options.lookup ?? { bySource: conversionsOfSource, byId: conversionById };
  const setAside = options.setAside ?? publishConversions;
  const record = options.record ?? recordDelivery;
  const noteFiltered = options.recordFiltered ?? recordFiltered;

  const pending = new Map<string, Pending>();
  const cache = new Map<string, { conversions: Promise<Conversion[]>; until: number }>();
  const queue: Array<() => Promise<void>> = [];
  let running = 0;
  let inFlight = 0;
  const idle: Array<() => void> = [];

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

  const maxBatchOf = (conversion: Conversion) => connectorFor(conversion.destination.platform).deliver?.maxBatch ?? 100;

  function settle(ticket: Ticket, ok: boolean) {
    if (!ok) ticket.failed = true;
    ticket.remaining -= 1;
    if (ticket.remaining > 0) return;
    if (ticket.failed) ticket.message.nack();
    else ticket.message.ack();
    inFlight -= 1;
    if (inFlight === 0) idle.splice(0).forEach((resolve) => resolve());
  }

  function pump() {
    while (running < concurrency && queue.length > 0) {
      const job = queue.shift()!;
      running += 1;
      void job().finally(() => {
        running -= 1;
        pump();
      });
    }
  }

  /** Sends what a conversion has gathered (up to its maximum), leaving the rest for the next batch. */
  function flush(key: string) {
    const entry = pending.get(key);
    if (!entry || entry.items.length === 0) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    const items = entry.items.splice(0, maxBatchOf(entry.conversion));
    if (entry.items.length === 0) pending.delete(key);
    else schedule(key, entry);
    queue.push(async () => {
      try {
        // Read again just before sending (one read a batch): a conversion deleted since it was cached sends nothing.
        const [current] = await lookup.byId(entry.orgId, entry.conversion.id);
        if (!current) {
          console.warn('[worker] events of a deleted conversion were not sent', { conversion: entry.conversion.id, events: items.length });
          items.forEach((item) => settle(item.ticket, true));
          return;
        }
        await deliver(
          entry.orgId,
          current,
          items.map((item) => item.event),
        );
        items.forEach((item) => settle(item.ticket, true));
      } catch (error) {
        console.error('[worker] delivery not recorded; its events go back on the queue', {
          conversion: entry.conversion.id,
          error: error instanceof Error ? error.message : error,
        });
        await setAsideFailed(entry, items);
      }
    });
    pump();
  }

  /**
   * A batch whose outcome was not recorded. Events of messages routed by source are published again for this
   * conversion alone, and their messages may then be acknowledged: neither the other conversions their
   * messages went to nor the other batches hear of them again. Events of a message already meant for this
   * conversion alone (a replay, a read, an event set aside before) leave it unacknowledged: Pub/Sub gives it
   * back after its backoff and dead-letters it after its last attempt.
   */
  async function setAsideFailed(entry: Pending, items: Pending['items']) {
    const routed = items.filter((item) => !item.ticket.message.attributes.conversion);
    items.filter((item) => item.ticket.message.attributes.conversion).forEach((item) => settle(item.ticket, false));
    if (routed.length === 0) return;
    let published = true;
    try {
      const { source } = routed[0]!.ticket.message.attributes;
      await setAside(
        routed.map((item) => item.event),
        { org: entry.orgId, source: source!, conversion: entry.conversion.id },
      );
    } catch (error) {
      published = false;
      console.error('[worker] could not set the events aside; their messages will come again', {
        conversion: entry.conversion.id,
        error: error instanceof Error ? error.message : error,
      });
    }
    routed.forEach((item) => settle(item.ticket, published));
  }

  function schedule(key: string, entry: Pending) {
    if (entry.items.length >= maxBatchOf(entry.conversion)) return flush(key);
    entry.timer ??= setTimeout(() => flush(key), lingerMs);
  }

  async function route(message: QueueMessage) {
    const parsed = parseConversionMessage(message.data, message.attributes);
    if (!parsed) {
      console.error('[worker] a message that holds no conversion events was dropped', { id: message.id });
      return message.ack();
    }
    const { events, unreadable, attributes } = parsed;
    const conversions = (await conversionsFor(attributes.org, attributes.source, attributes.conversion)).filter((conversion) =>
      attributes.conversion ? conversion.id === attributes.conversion : conversion.status === 'active',
    );
    if (unreadable.length > 0) {
      // Never dropped in silence: each conversion that would take them logs them as not sent, before the message is acknowledged.
      console.error('[worker] events that do not follow the schema are logged as not sent', { id: message.id, count: unreadable.length });
      await Promise.all(
        conversions.map((conversion) => {
          // An event whose name cannot be read is logged by every conversion: none can tell it was not theirs.
          const rows = unreadable
            .filter((item) => attributes.conversion || !item.name || takesEvent(conversion.mapping, { name: item.name }))
            .map((item) => ({ id: item.id, status: 'not_sent' as const, reason: item.reason }));
          return rows.length > 0 ? record(attributes.org, conversion.id, { test: false, latencyMs: null, rows, parked: [] }) : null;
        }),
      );
    }
    if (!attributes.conversion) {
      // Noted before the ack, one write per conversion that left some out: searching the log for one says why.
      await Promise.all(
        conversions.map((conversion) => {
          const left = events.filter((event) => !takesEvent(conversion.mapping, event));
          return left.length > 0
            ? noteFiltered(
                attributes.org,
                conversion.id,
                left.map((event) => ({ id: event.id, name: event.name })),
                conversion.mapping.events,
              )
            : null;
        }),
      );
    }
    // One ticket for the message: it is settled once every event has been recorded by every conversion it went to.
    const ticket: Ticket = { message, remaining: 0, failed: false };
    for (const conversion of conversions) {
      const taken = attributes.conversion ? events : events.filter((event) => takesEvent(conversion.mapping, event));
      if (taken.length === 0) continue;
      const key = `${attributes.org}/${conversion.id}`;
      let entry = pending.get(key);
      if (!entry) {
        entry = { orgId: attributes.org, conversion, items: [], timer: null };
        pending.set(key, entry);
      }
      ticket.remaining += taken.length;
      for (const event of taken) entry.items.push({ event, ticket });
    }
    if (ticket.remaining === 0) return message.ack();
    inFlight += 1;
    // Scheduled after every item is in place: a batch sent at once must not settle the ticket early.
    for (const conversion of conversions) {
      const key = `${attributes.org}/${conversion.id}`;
      const entry = pending.get(key);
      if (entry) schedule(key, entry);
    }
  }

  return {
    /** Takes one message; never throws (a message it cannot route now is nacked). */
    handle(message: QueueMessage) {
      route(message).catch((error) => {
        console.error('[worker] could not route a message; it will come again', {
          id: message.id,
          error: error instanceof Error ? error.message : error,
        });
        message.nack();
      });
    },
    /** Sends every partial batch now and resolves when nothing is in flight (a clean shutdown). */
    async drain() {
      for (const key of [...pending.keys()]) flush(key);
      if (inFlight > 0) await new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
