import { createHash } from 'node:crypto';
import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { connectorFor } from '@/lib/server/connectors/registry';
import PQueue from 'p-queue';
import { deliverBatch, RetryLater, takesEvent } from '@/lib/server/delivery/deliver';
import { createFairQuota, type FairQuota } from '@/lib/server/delivery/quota';
import { parseConversionMessage, publishConversions } from '@/lib/server/queue/pubsub';
import { conversionById, conversionsOfSource } from '@/lib/server/repos/conversions';
import { createDeliveryCounters, type DeliveryCounters } from '@/lib/server/repos/deliveryCounters';
import { noteDeliveries } from '@/lib/server/alerts/delivery';
import { errorFields, eventIdsOf, labels, log } from '@/lib/server/log';
import type { QueueMessage } from '@/lib/server/queue/message';
import { recordDeliveries, recordFiltered, CounterSink } from '@/lib/server/repos/deliveryLog';

/**
 * The delivery worker's core, between Pub/Sub messages and platform calls. Each message (up to 500
 * events) is routed to the conversions of its source that take it; events are gathered per conversion up
 * to the platform's maximum batch, or for a short linger; a message is acknowledged only once every
 * conversion it went to has recorded its outcome. A batch whose outcome could not be recorded is set
 * aside: its events are published again for that conversion alone, so the rest of their messages is not
 * sent again. An event set aside that fails again leaves its message unacknowledged, and Pub/Sub delivers
 * it again after a backoff, then dead-letters it: at-least-once, and the platforms deduplicate by event id.
 *
 * Lanes: each destination (an organization's login to a platform) sends through its own small queue
 * (a few calls at once: laneSlotsOf), so a platform that hangs holds only its own lanes. A transient
 * failure waits for its retry off the lane: a timer puts the batch back in line, its messages stay in hand
 * (their leases are extended) until its outcome is recorded. Platforms with a quota shared by every tenant
 * (Google's Data Manager) take a turn from a fair quota first (quota.ts).
 *
 * State here is only what is in flight and the counters not yet written (deliveryCounters.ts); conversions
 * are re-read every few seconds. Two workers on one subscription share nothing but Pub/Sub and Firestore.
 */

interface Ticket {
  message: QueueMessage;
  remaining: number;
  failed: boolean;
}

interface Batch {
  entry: Pending;
  items: Pending['items'];
  /** Attempts made (a retry comes back with one more). */
  attempt: number;
}

/** An event of parked events published again (Retry, Reconnect): counted as received when it first came. */
const isReplay = (item: { ticket: Ticket }) => item.ticket.message.attributes.replay === 'parked';

/** How long a batch whose lane is full waits before it is taken again. */
const LANE_FULL_WAIT_MS = 5000;
/** A conversion's filtered-out notes are written at most this often (one document each time). */
const FILTERED_EVERY_MS = 1000;
/** How long a lane holding nothing is kept (with its trouble remembered) before it is forgotten. */
const LANE_IDLE_MS = 60_000;
/** A platform call taking longer than this marks its lane as troubled (a healthy call takes well under a second). */
const SLOW_SEND_MS = 5000;

/** A conversion's filtered-out notes not yet written, and the tickets of the messages they came from. */
interface FilteredNotes {
  key: string;
  orgId: string;
  conversionId: string;
  wanted: string[];
  events: Array<{ id: string; name: string }>;
  messages: string[];
  tickets: Ticket[];
  timer: NodeJS.Timeout | null;
}

interface Pending {
  orgId: string;
  conversion: Conversion;
  /** Each event with its message's ticket and the attempts it had (a batch set aside to wait comes with them). */
  items: Array<{ event: ConversionEvent; ticket: Ticket; attempt: number }>;
  timer: NodeJS.Timeout | null;
}

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
/** Platform calls at once per lane, unless DELIVERY_LANE_CONCURRENCY says otherwise: at most this many, see laneSlotsOf. */
const LANE_SLOTS_DEFAULT = 4;

export function createConversionRouter(options: RouterOptions = {}) {
  const lingerMs = options.lingerMs ?? Number(process.env.DELIVERY_LINGER_MS || 1000);
  const configuredSlots = options.laneConcurrency ?? (Number(process.env.DELIVERY_LANE_CONCURRENCY) || null);
  // A quarter of what the worker holds in hand (WORKER_MAX_EVENTS): a stuck lane leaves the rest to the others.
  const laneMaxEvents = options.laneMaxEvents ?? Number(process.env.WORKER_MAX_EVENTS || WORKER_MAX_EVENTS_DEFAULT) / 4;
  const cacheMs = options.cacheMs ?? 5000;
  const deliver = options.deliver ?? deliverBatch;
  const lookup = options.lookup ?? { bySource: conversionsOfSource, byId: conversionById };
  const setAside = options.setAside ?? publishConversions;
  const recordNotSent = options.recordUnreadable ?? recordDeliveries;
  // A router given its own delivery (a unit test) writes no counters of its own. A conversion's alerts are
  // evaluated once its counters are written (a quiet burst of refusals is seen then, not missed before).
  const counters: DeliveryCounters | undefined =
    options.counters ?? (options.deliver ? undefined : createDeliveryCounters({ onWritten: noteDeliveries }));
  const sink: CounterSink | undefined = counters;
  const quotas = new Map<string, FairQuota>(
    Object.entries(options.sharedQuotas ?? { google_ads: Number(process.env.DATAMANAGER_REQUESTS_PER_MINUTE || 300) }).map(
      ([platform, perMinute]) => [platform, createFairQuota(perMinute!)],
    ),
  );
  const recordFilteredNotes = options.recordFiltered ?? recordFiltered;

  const pending = new Map<string, Pending>();
  /** Filtered-out notes gathered per conversion (and the names it wants), each message's ticket waiting for their write. */
  const filtered = new Map<string, FilteredNotes>();
  /** When each conversion's notes were last written (org/conversion; kept a second: sweep). */
  const filteredAt = new Map<string, number>();
  const cache = new Map<string, { conversions: Promise<Conversion[]>; until: number }>();
  /** One lane per destination, dropped when it holds nothing. */
  const lanes = new Map<string, Lane>();
  /** Batches waiting for their retry (a timer each), to be set aside on a shutdown. */
  const waiting = new Map<NodeJS.Timeout, { batch: Batch; at: number; lane: Lane }>();
  let inFlight = 0;
  let stopping = false;
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
  /**
   * A lane's calls at once: as many full batches as fit in its share of the worker's room, at most
   * LANE_SLOTS_DEFAULT (Meta's 1,000-event batches: 4 at the default room). Calls that hang together hold
   * only that share; a platform slow to answer (each call waits on its latency) still gets several at once.
   * A DELIVERY_LANE_CONCURRENCY set by hand is taken as it is.
   */
  const laneSlotsOf = (conversion: Conversion) =>
    configuredSlots ?? Math.max(1, Math.min(LANE_SLOTS_DEFAULT, Math.floor(laneMaxEvents / maxBatchOf(conversion))));

  function settle(ticket: Ticket, ok: boolean) {
    if (!ok) ticket.failed = true;
    ticket.remaining -= 1;
    if (ticket.remaining > 0) return;
    if (ticket.failed) ticket.message.nack();
    else ticket.message.ack();
    inFlight -= 1;
    if (inFlight === 0) idle.splice(0).forEach((resolve) => resolve());
  }

  interface Lane {
    queue: PQueue;
    /** Events in hand for this lane: in line, being sent, or waiting for a retry. */
    events: number;
    /** Batches waiting for a retry. */
    retrying: number;
    /** When the platform call of each batch being sent started (set once its request goes out, quota turn taken). */
    sending: Map<Batch, number>;
    /** Batches in line, not yet sending. */
    queued: Set<Batch>;
    /** Since when the lane has been troubled (seen by the sweep), or null. */
    troubledSince: number | null;
    /** When a batch last came into the lane or left it: a troubled lane idle for a minute is forgotten (sweep). */
    activeAt: number;
  }

  const laneKeyOf = (entry: Pending) => `${entry.orgId}/${entry.conversion.destination.destinationId}`;

  function laneOf(entry: Pending): Lane {
    const key = laneKeyOf(entry);
    let lane = lanes.get(key);
    if (!lane) {
      lane = {
        queue: new PQueue({ concurrency: laneSlotsOf(entry.conversion) }),
        events: 0,
        retrying: 0,
        sending: new Map(),
        queued: new Set(),
        troubledSince: null,
        activeAt: Date.now(),
      };
      lanes.set(key, lane);
    }
    return lane;
  }

  /** What a troubled lane may hold in hand: a full batch per slot, or its share of the worker's room, whichever is more. */
  const laneCapOf = (entry: Pending) => Math.max(laneSlotsOf(entry.conversion) * maxBatchOf(entry.conversion), Math.floor(laneMaxEvents));

  /** A lane in trouble: a batch waits for a retry, or one has been sending for longer than a platform should take. */
  const troubled = (lane: Lane) =>
    lane.troubledSince !== null || lane.retrying > 0 || [...lane.sending.values()].some((started) => Date.now() - started > SLOW_SEND_MS);

  function release(lane: Lane, key: string, events: number) {
    lane.events -= events;
    lane.activeAt = Date.now();
    // A troubled lane is kept while it holds nothing (a minute at most: sweep): what comes back finds its trouble remembered.
    if (lane.events <= 0 && lane.troubledSince === null && lane.queue.size === 0 && lane.queue.pending === 0 && lanes.get(key) === lane)
      lanes.delete(key);
  }

  /**
   * How long a batch set aside from a troubled lane waits: as long as the lane has been in trouble (5 s to a
   * minute), so a long outage is asked about less and less often rather than churned through Pub/Sub.
   */
  const waitOf = (lane: Lane) => Math.min(60_000, Math.max(LANE_FULL_WAIT_MS, Date.now() - (lane.troubledSince ?? Date.now())));

  /**
   * Puts a batch in its lane's line; a troubled lane already holding its share of the worker's room (a platform
   * that hangs) sets it aside to come back later, so its messages do not fill the room every other lane needs.
   */
  function enqueue(batch: Batch, waitMs?: number) {
    const lane = laneOf(batch.entry);
    // A worker stopping sends nothing more: a lane that hangs would hold the shutdown (and the acks) for its timeouts.
    if (stopping) return void setAsideLater(batch, Math.max(waitMs ?? 0, troubled(lane) ? waitOf(lane) : 0));
    const full = lane.events > 0 && lane.events + batch.items.length > laneCapOf(batch.entry);
    if (full && troubled(lane)) return void setAsideLater(batch, Math.max(waitMs ?? 0, waitOf(lane)));
    inLine(lane, batch);
  }

  function inLine(lane: Lane, batch: Batch) {
    lane.events += batch.items.length;
    lane.activeAt = Date.now();
    lane.queued.add(batch);
    const key = laneKeyOf(batch.entry);
    void lane.queue
      .add(async () => {
        // Taken out of line meanwhile (its lane got into trouble: sweep).
        if (!lane.queued.delete(batch)) return;
        let answeredIn: number | null = null;
        let answered!: () => void;
        const platformDone = new Promise<void>((resolve) => (answered = resolve));
        const done = send(batch, lane, () => {
          const started = lane.sending.get(batch);
          lane.sending.delete(batch);
          answeredIn = started === undefined ? null : Date.now() - started;
          answered();
        }).then((next) => {
          lane.sending.delete(batch);
          // A batch the platform answered in good time: it answers again, the lane is out of trouble.
          if (!next && answeredIn !== null && answeredIn < SLOW_SEND_MS) lane.troubledSince = null;
          release(lane, key, batch.items.length);
          if (next) wait(next.batch, next.delayMs);
        });
        // The lane's slot is the platform's: the next batch goes out once this one is answered, while its record
        // is written (the batch's events stay counted in the lane, and its messages unacked, until that is done).
        await Promise.race([platformDone, done]);
      })
      .then(() => release(lane, key, 0));
  }

  /**
   * A lane that got into trouble while batches stood in its line (a platform that hangs answers nothing for
   * its timeout): the newest are set aside to come back later until what the lane holds is within its share.
   * Checked every second, so what a hung platform's lane holds in hand stops growing within seconds.
   */
  function sweep() {
    for (const [key, at] of filteredAt) if (Date.now() - at > FILTERED_EVERY_MS) filteredAt.delete(key);
    for (const [key, lane] of lanes) {
      // A troubled lane that has held nothing for a minute is forgotten, its trouble with it: what comes next probes afresh.
      const empty = lane.events <= 0 && lane.retrying === 0 && lane.queue.size === 0 && lane.queue.pending === 0;
      if (empty && Date.now() - lane.activeAt > LANE_IDLE_MS) {
        lanes.delete(key);
        continue;
      }
      if (!troubled(lane)) continue;
      lane.troubledSince ??= Date.now();
      for (const batch of [...lane.queued].reverse()) {
        if (lane.events <= laneCapOf(batch.entry)) break;
        lane.queued.delete(batch);
        release(lane, key, batch.items.length);
        void setAsideLater(batch, waitOf(lane));
      }
    }
  }
  const sweeping = setInterval(sweep, 1000);
  sweeping.unref?.();

  /** A batch waits for its retry off its lane: a timer puts it back in line (its messages stay in hand, leases extended). */
  function wait(batch: Batch, delayMs: number) {
    const lane = laneOf(batch.entry);
    // A lane already full (or a worker stopping) sets it aside at once rather than hold more in hand.
    if (stopping || lane.events + batch.items.length > laneCapOf(batch.entry))
      return void setAsideLater(batch, Math.max(delayMs, waitOf(lane)));
    lane.events += batch.items.length;
    lane.retrying += 1;
    const timer = setTimeout(() => {
      waiting.delete(timer);
      lane.retrying -= 1;
      release(lane, laneKeyOf(batch.entry), batch.items.length);
      enqueue(batch, delayMs);
    }, delayMs);
    waiting.set(timer, { batch, at: Date.now() + delayMs, lane });
  }

  /**
   * Sends one batch; a transient failure with attempts left comes back as the batch to retry and when.
   * `answered` is called once the platform is done with it (its record is still to be written).
   */
  async function send(batch: Batch, lane: Lane, answered: () => void): Promise<{ batch: Batch; delayMs: number } | null> {
    const { entry, items } = batch;
    try {
      // Read again just before sending (one read a batch): a conversion deleted since it was cached sends nothing.
      const [current] = await lookup.byId(entry.orgId, entry.conversion.id);
      if (!current) {
        log.info(
          { component: 'worker', ...labels({ org: entry.orgId, conversion: entry.conversion.id }), count: items.length },
          'events of a deleted conversion not sent',
        );
        items.forEach((item) => settle(item.ticket, true));
        return null;
      }
      const quota = quotas.get(current.destination.platform);
      await deliver(
        entry.orgId,
        current,
        items.map((item) => item.event),
        {
          attempt: batch.attempt,
          deferRetries: true,
          counters: sink,
          replayed: new Set(items.filter(isReplay).map((item) => item.event.id)),
          // The send clock runs only while the platform is asked: reading the conversion or the login, or waiting for
          // the shared quota's turn (Data Manager), is no sign the platform is in trouble.
          beforeSend: async () => {
            lane.sending.delete(batch);
            if (quota) await quota.take(entry.orgId);
            lane.sending.set(batch, Date.now());
          },
          afterSend: answered,
        },
      );
      items.forEach((item) => settle(item.ticket, true));
    } catch (error) {
      if (error instanceof RetryLater) return { batch: { ...batch, attempt: batch.attempt + 1 }, delayMs: error.delayMs };
      log.error(
        {
          component: 'worker',
          ...labels({ org: entry.orgId, conversion: entry.conversion.id }),
          ...eventIdsOf(items.map((item) => item.event)),
          ...errorFields(error),
        },
        'delivery not recorded; its events go back on the queue',
      );
      await setAsideFailed(entry, items);
    }
    return null;
  }

  /**
   * A batch that is to wait (its lane is full, or the worker stops while it waits for a retry): its events are
   * published again for its conversion alone, with its attempts and the time before which it is not sent, and
   * its messages may be acknowledged. When that time comes the message is taken again (one received early is
   * given back to Pub/Sub until then). If it cannot be published, it waits in hand.
   */
  async function setAsideLater(batch: Batch, delayMs: number) {
    const { entry, items } = batch;
    const { source } = items[0]!.ticket.message.attributes;
    const attributes = {
      org: entry.orgId,
      source: source!,
      conversion: entry.conversion.id,
      attempt: String(batch.attempt),
      not_before: String(Date.now() + delayMs),
    };
    // Parked events published again stay marked as such, so they are still not counted as received twice. A
    // message is wholly a replay or not: each half is settled, or kept in hand, on its own (a half published and
    // then kept with the other would be sent twice).
    const halves = [
      { items: items.filter(isReplay), attributes: { ...attributes, replay: 'parked' as const } },
      { items: items.filter((item) => !isReplay(item)), attributes },
    ].filter((half) => half.items.length > 0);
    const published = await Promise.allSettled(
      halves.map((half) =>
        setAside(
          half.items.map((item) => item.event),
          half.attributes,
        ),
      ),
    );
    const kept = halves.flatMap((half, index) => {
      const outcome = published[index]!;
      if (outcome.status === 'rejected') {
        log.error(
          { component: 'worker', ...labels({ org: entry.orgId, conversion: entry.conversion.id }), ...errorFields(outcome.reason) },
          'could not set a waiting batch aside; it waits in hand',
        );
        return half.items;
      }
      half.items.forEach((item) => settle(item.ticket, true));
      return [];
    });
    if (kept.length === 0) return;
    const left: Batch = { ...batch, items: kept };
    const lane = laneOf(entry);
    lane.events += kept.length;
    lane.retrying += 1;
    const timer = setTimeout(() => {
      waiting.delete(timer);
      lane.retrying -= 1;
      release(lane, laneKeyOf(entry), kept.length);
      inLine(lane, left);
    }, delayMs);
    waiting.set(timer, { batch: left, at: Date.now() + delayMs, lane });
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
    enqueue({ entry, items, attempt: Math.max(0, ...items.map((item) => item.attempt)) });
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
      log.error(
        { component: 'worker', ...labels({ org: entry.orgId, conversion: entry.conversion.id }), ...errorFields(error) },
        'could not set the events aside; their messages will come again',
      );
    }
    routed.forEach((item) => settle(item.ticket, published));
  }

  const filteredKeyOf = (orgId: string, conversion: Conversion) => `${orgId}/${conversion.id}|${JSON.stringify(conversion.mapping.events)}`;

  /**
   * Notes the events of a message a conversion's event-name filter leaves out, so searching the log for one says
   * why. Gathered per conversion and written at most once a second (one document); the message waits for that write.
   */
  function noteFiltered(orgId: string, conversion: Conversion, events: ConversionEvent[], messageId: string, ticket: Ticket) {
    const key = filteredKeyOf(orgId, conversion);
    let notes = filtered.get(key);
    if (!notes) {
      notes = {
        key,
        orgId,
        conversionId: conversion.id,
        wanted: conversion.mapping.events,
        events: [],
        messages: [],
        tickets: [],
        timer: null,
      };
      filtered.set(key, notes);
    }
    for (const event of events) if (!takesEvent(conversion.mapping, event)) notes.events.push({ id: event.id, name: event.name });
    notes.messages.push(messageId);
    notes.tickets.push(ticket);
    ticket.remaining += 1;
  }

  /** How long gathered notes wait: until a second after the conversion's last write (none lately: at once). */
  const filteredWaitOf = (notes: FilteredNotes) =>
    Math.max(0, (filteredAt.get(`${notes.orgId}/${notes.conversionId}`) ?? 0) + FILTERED_EVERY_MS - Date.now());

  /** Writes a conversion's gathered notes, under an id derived from the messages they cover (written again, it replaces itself). */
  function writeFiltered(notes: FilteredNotes) {
    if (filtered.get(notes.key) === notes) filtered.delete(notes.key);
    if (notes.timer) clearTimeout(notes.timer);
    notes.timer = null;
    filteredAt.set(`${notes.orgId}/${notes.conversionId}`, Date.now());
    const id = createHash('sha256')
      .update([...notes.messages].sort().join('\n'))
      .digest('hex')
      .slice(0, 32);
    recordFilteredNotes(notes.orgId, notes.conversionId, notes.events, notes.wanted, id).then(
      () => notes.tickets.forEach((ticket) => settle(ticket, true)),
      (error) => {
        log.error(
          { component: 'worker', ...labels({ org: notes.orgId, conversion: notes.conversionId }), ...errorFields(error) },
          'could not note the events a filter left out; their messages will come again',
        );
        notes.tickets.forEach((ticket) => settle(ticket, false));
      },
    );
  }

  function schedule(key: string, entry: Pending) {
    if (entry.items.length >= maxBatchOf(entry.conversion)) return flush(key);
    entry.timer ??= setTimeout(() => flush(key), lingerMs);
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
    if (unreadable.length > 0) {
      // Never dropped in silence: each conversion that would take them logs them as not sent, before the message is acknowledged.
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
    // One ticket for the message: it is settled once every event has been recorded by every conversion it went to.
    const ticket: Ticket = { message, remaining: 0, failed: false };
    for (const conversion of conversions) {
      const taken = attributes.conversion ? events : events.filter((event) => takesEvent(conversion.mapping, event));
      if (!attributes.conversion && taken.length < events.length) noteFiltered(attributes.org, conversion, events, message.id, ticket);
      if (taken.length === 0) continue;
      const key = `${attributes.org}/${conversion.id}`;
      let entry = pending.get(key);
      if (!entry) {
        entry = { orgId: attributes.org, conversion, items: [], timer: null };
        pending.set(key, entry);
      }
      ticket.remaining += taken.length;
      for (const event of taken) entry.items.push({ event, ticket, attempt });
    }
    if (ticket.remaining === 0) return message.ack();
    inFlight += 1;
    // Scheduled after every item is in place: a batch sent at once must not settle the ticket early.
    for (const conversion of conversions) {
      const key = `${attributes.org}/${conversion.id}`;
      const entry = pending.get(key);
      if (entry) schedule(key, entry);
      const notes = filtered.get(filteredKeyOf(attributes.org, conversion));
      if (notes) notes.timer ??= setTimeout(() => writeFiltered(notes), filteredWaitOf(notes));
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
      stopping = true;
      clearInterval(sweeping);
      for (const key of [...pending.keys()]) flush(key);
      for (const notes of [...filtered.values()]) writeFiltered(notes);
      // Batches waiting for a retry are not waited for: set aside for their conversion (or given back to Pub/Sub).
      const retries = [...waiting];
      waiting.clear();
      for (const [timer, { batch, at, lane }] of retries) {
        clearTimeout(timer);
        lane.retrying -= 1;
        release(lane, laneKeyOf(batch.entry), batch.items.length);
        void setAsideLater(batch, Math.max(0, at - Date.now()));
      }
      // Batches still in a lane's line are set aside too: only those already being sent are waited for.
      for (const [key, lane] of lanes) {
        for (const batch of [...lane.queued]) {
          lane.queued.delete(batch);
          release(lane, key, batch.items.length);
          void setAsideLater(batch, troubled(lane) ? waitOf(lane) : 0);
        }
      }
      if (inFlight > 0) await new Promise<void>((resolve) => idle.push(resolve));
      quotas.forEach((quota) => quota.stop());
      await counters?.stop();
    },
  };
}
