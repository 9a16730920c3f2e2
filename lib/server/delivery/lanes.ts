import PQueue from 'p-queue';
import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { Batch, Gathered } from '@/lib/server/delivery/batch';
import { publishToWait, type SetAsideDeps } from '@/lib/server/delivery/setAside';

/** How long a batch whose lane is full waits before it is taken again. */
const LANE_FULL_WAIT_MS = 5000;
/** How long a lane holding nothing is kept (with its trouble remembered) before it is forgotten. */
const LANE_IDLE_MS = 60_000;
/** A platform call taking longer than this marks its lane as troubled (a healthy call takes well under a second). */
const SLOW_SEND_MS = 5000;
/** Platform calls at once per lane, unless DELIVERY_LANE_CONCURRENCY says otherwise: at most this many, see slotsOf. */
const LANE_SLOTS_DEFAULT = 4;

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

/**
 * The clock of one batch's platform call: paused while the sender reads or waits for a quota turn (no sign
 * the platform is in trouble), running while the platform is asked, stopped once it answered (its record
 * is still to be written).
 */
export interface SendClock {
  pause(): void;
  resume(): void;
  answered(): void;
}

/** A batch to send again after a transient failure, and when. */
export interface Retry {
  batch: Batch;
  delayMs: number;
}

/** Sends one batch and records its outcome; a transient failure with attempts left comes back as a Retry. */
export type SendBatch = (batch: Batch, clock: SendClock) => Promise<Retry | null>;

export interface LaneOptions extends SetAsideDeps {
  /** Platform calls at once per lane set by hand (DELIVERY_LANE_CONCURRENCY), or null to size them. */
  configuredSlots: number | null;
  /** Events a lane may hold in hand before its next batches are set aside to wait (when it is troubled). */
  laneMaxEvents: number;
  maxBatchOf: (conversion: Conversion) => number;
  send: SendBatch;
}

/**
 * Lanes: each destination (an organization's login to a platform) sends through its own small queue (a few
 * calls at once: slotsOf), so a platform that hangs holds only its own lanes. A transient failure waits for its
 * retry off the lane: a timer puts the batch back in line, its messages stay in hand (their leases are
 * extended) until its outcome is recorded. A troubled lane holding more than its share of the worker's room
 * sets its next batches aside (published again to come back later), so they do not fill the room every other
 * lane needs.
 */
export function createLanes(options: LaneOptions) {
  const { configuredSlots, laneMaxEvents, maxBatchOf, send } = options;
  /** One lane per destination, dropped when it holds nothing. */
  const lanes = new Map<string, Lane>();
  /** Batches waiting for their retry (a timer each), to be set aside on a shutdown. */
  const waiting = new Map<NodeJS.Timeout, { batch: Batch; at: number; lane: Lane }>();
  let stopping = false;

  /**
   * A lane's calls at once: as many full batches as fit in its share of the worker's room, at most
   * LANE_SLOTS_DEFAULT (Meta's 1,000-event batches: 4 at the default room). Calls that hang together hold
   * only that share; a platform slow to answer (each call waits on its latency) still gets several at once.
   * A DELIVERY_LANE_CONCURRENCY set by hand is taken as it is.
   */
  const slotsOf = (conversion: Conversion) =>
    configuredSlots ?? Math.max(1, Math.min(LANE_SLOTS_DEFAULT, Math.floor(laneMaxEvents / maxBatchOf(conversion))));

  const laneKeyOf = (entry: Gathered) => `${entry.orgId}/${entry.conversion.destination.destinationId}`;

  function laneOf(entry: Gathered): Lane {
    const key = laneKeyOf(entry);
    let lane = lanes.get(key);
    if (!lane) {
      lane = {
        queue: new PQueue({ concurrency: slotsOf(entry.conversion) }),
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
  const capOf = (entry: Gathered) => Math.max(slotsOf(entry.conversion) * maxBatchOf(entry.conversion), Math.floor(laneMaxEvents));

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
    const full = lane.events > 0 && lane.events + batch.items.length > capOf(batch.entry);
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
        const done = send(batch, {
          pause: () => lane.sending.delete(batch),
          resume: () => lane.sending.set(batch, Date.now()),
          answered: () => {
            const started = lane.sending.get(batch);
            lane.sending.delete(batch);
            answeredIn = started === undefined ? null : Date.now() - started;
            answered();
          },
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

  /** Holds a batch in hand for `delayMs`, counted in its lane as retrying, then hands it to `comeBack`. */
  function holdInHand(lane: Lane, batch: Batch, delayMs: number, comeBack: () => void) {
    lane.events += batch.items.length;
    lane.retrying += 1;
    const timer = setTimeout(() => {
      waiting.delete(timer);
      lane.retrying -= 1;
      release(lane, laneKeyOf(batch.entry), batch.items.length);
      comeBack();
    }, delayMs);
    waiting.set(timer, { batch, at: Date.now() + delayMs, lane });
  }

  /** A batch waits for its retry off its lane: a timer puts it back in line (its messages stay in hand, leases extended). */
  function wait(batch: Batch, delayMs: number) {
    const lane = laneOf(batch.entry);
    // A lane already full (or a worker stopping) sets it aside at once rather than hold more in hand.
    if (stopping || lane.events + batch.items.length > capOf(batch.entry))
      return void setAsideLater(batch, Math.max(delayMs, waitOf(lane)));
    holdInHand(lane, batch, delayMs, () => enqueue(batch, delayMs));
  }

  /** Publishes a batch to come back after `delayMs` (setAside.ts); what could not be published waits in hand. */
  async function setAsideLater(batch: Batch, delayMs: number) {
    const kept = await publishToWait(batch, delayMs, options);
    if (kept.length === 0) return;
    const left: Batch = { ...batch, items: kept };
    const lane = laneOf(batch.entry);
    holdInHand(lane, left, delayMs, () => inLine(lane, left));
  }

  return {
    enqueue,
    /**
     * A lane that got into trouble while batches stood in its line (a platform that hangs answers nothing for
     * its timeout): the newest are set aside to come back later until what the lane holds is within its share.
     * Called every second, so what a hung platform's lane holds in hand stops growing within seconds.
     */
    sweep() {
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
          if (lane.events <= capOf(batch.entry)) break;
          lane.queued.delete(batch);
          release(lane, key, batch.items.length);
          void setAsideLater(batch, waitOf(lane));
        }
      }
    },
    /** From now on every batch is set aside rather than sent (a worker stopping). */
    stop() {
      stopping = true;
    },
    /** Sets aside every batch not being sent: waiting for a retry, or in a lane's line (a drain). */
    setAsideAll() {
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
    },
  };
}
