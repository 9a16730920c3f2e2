import { randomBytes } from 'node:crypto';
import { Timestamp, type DocumentSnapshot, type UpdateData, type WriteBatch } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { errorFields, labels, log } from '@/lib/server/log';
import { conversionRef, RETENTION_MS } from '@/lib/server/repos/conversions';
import { ParkReason } from '@/lib/server/repos/parkedEvents';
import { HourTally, hourOf, hourDocument, addTally } from '@/lib/server/repos/hourTallies';
import { DeliveryCounts, CounterSink, conversionDeliveryFields } from '@/lib/server/repos/deliveryLog';

/**
 * The delivery worker's counters, summed in memory and written at most once per `hourEveryMs` (a second)
 * per conversion: Firestore sustains about one write a second on a document, and a busy conversion records
 * many batches a second, on several workers. Each worker owns its shard of an hour (`hours/{hour}~{worker}`;
 * readers sum the documents of an hour) and writes there its running totals with set(), never an increment:
 * a commit retried after an error that hid its success (DEADLINE_EXCEEDED, UNAVAILABLE) writes the same
 * totals again. The worker keeps the totals of the current and the previous hour, then forgets them.
 *
 * The conversion's own document (last delivery, parked counts) is written at most once per
 * `conversionEveryMs` (5 s) per worker, and by all workers together at most once a second however many run:
 * a worker reads the document first and writes it only if its last write (any worker's, or an edit) is at
 * least DOCUMENT_GAP_MS old, on the precondition that nobody wrote it since that read; otherwise the write
 * waits for a later flush (and the messages that park events wait with it). Its parked counts are
 * increments (Retry takes them off); a write carrying one creates a marker document
 * (`counter_writes/{worker}-{n}`) in the same batch and is retried unchanged, so a retry whose first try
 * landed fails on the marker (ALREADY_EXISTS) and is known to be done: nothing is counted twice.
 *
 * What a crash loses: the counters not yet written (the last second's; the delivery records, written before
 * the ack, keep every outcome) and a last-delivery time about 5 s old (a little more while other workers hold
 * the document's second). A batch that parks events is acknowledged only once their count is written; after
 * `maxTries` failed writes its waiters are let go (their messages acknowledged: the records are written) while
 * the count is still tried.
 */

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** This worker's running totals of one hour, and which of their versions is written. */
interface HourTotals {
  tally: HourTally;
  version: number;
  written: number;
}

/** A write of the conversion's document, tried until it lands; `marker` when it carries increments. */
interface ConversionWrite {
  marker: string | null;
  fields: UpdateData<FirebaseFirestore.DocumentData>;
  waiters: Waiter[];
}

interface State {
  orgId: string;
  conversionId: string;
  hours: Map<string, HourTotals>;
  /** Resolved once the hour shards holding what they added are written. */
  hourWaiters: Waiter[];
  /** What the conversion's document has not been given yet. */
  deliveredAt: Date | null;
  requestId?: string;
  parked: Partial<Record<ParkReason, number>>;
  parkWaiters: Waiter[];
  inflight: ConversionWrite | null;
  failures: number;
}

/** Firestore's NOT_FOUND: the conversion was deleted meanwhile (its counters go with it). */
const NOT_FOUND = 5;
/** Firestore's ALREADY_EXISTS: a write's marker is there, so an earlier try of it landed. */
const ALREADY_EXISTS = 6;
/** Firestore's FAILED_PRECONDITION: another worker wrote the conversion's document between our read and commit. */
const FAILED_PRECONDITION = 9;
/** Firestore sustains about one write a second on a document: the conversion's is written only when its last write is this old. */
export const DOCUMENT_GAP_MS = 1000;
/** Markers only need to outlive a write's retries. */
const MARKER_RETENTION_MS = 24 * 3600 * 1000;

export interface DeliveryCounters extends CounterSink {
  /** Writes everything now and stops the timer (a clean shutdown). */
  stop(): Promise<void>;
  /** Writes everything now (tests). */
  flush(): Promise<void>;
}

export interface DeliveryCountersOptions {
  hourEveryMs?: number;
  conversionEveryMs?: number;
  /** This worker's shard name: unique per process (a restarted worker must not take over a shard's totals). */
  worker?: string;
  /** Failed writes before the waiters are rejected (their messages nacked). */
  maxTries?: number;
  /** Commits a batch (tests inject failures). */
  commit?: (batch: WriteBatch) => Promise<unknown>;
  /**
   * Told after a commit that wrote a conversion's counters (its hours or its document): what the alerts read
   * has landed (the worker evaluates the conversion's alerts then, not before: alerts/delivery.ts).
   */
  onWritten?: (orgId: string, conversionId: string) => unknown;
}

export function createDeliveryCounters(options: DeliveryCountersOptions = {}): DeliveryCounters {
  const hourEveryMs = options.hourEveryMs ?? Number(process.env.DELIVERY_COUNTERS_MS || 1000);
  const conversionEveryMs = options.conversionEveryMs ?? Number(process.env.DELIVERY_CONVERSION_WRITE_MS || 5000);
  const worker = options.worker ?? randomBytes(4).toString('hex');
  const maxTries = options.maxTries ?? 5;
  const commit = options.commit ?? ((batch: WriteBatch) => batch.commit());
  /** Tells `onWritten`; whatever it does, the counters go on. */
  const written = (state: State) => {
    try {
      options.onWritten?.(state.orgId, state.conversionId);
    } catch (error) {
      log.error(
        { component: 'worker', ...labels({ org: state.orgId, conversion: state.conversionId }), ...errorFields(error) },
        'told of written counters, and failed',
      );
    }
  };
  const states = new Map<string, State>();
  /** When each conversion's document was last written by this worker. */
  const writtenAt = new Map<string, number>();
  let markers = 0;
  let flushing: Promise<void> = Promise.resolve();

  function stateOf(orgId: string, conversionId: string): State {
    const key = `${orgId}/${conversionId}`;
    let state = states.get(key);
    if (!state) {
      state = {
        orgId,
        conversionId,
        hours: new Map(),
        hourWaiters: [],
        deliveredAt: null,
        parked: {},
        parkWaiters: [],
        inflight: null,
        failures: 0,
      };
      states.set(key, state);
    }
    return state;
  }

  const settle = (waiters: Waiter[]) => waiters.forEach((waiter) => waiter.resolve());

  /** Takes what the conversion's document has not been given into a write of its own (tried until it lands). */
  function takeConversionWrite(state: State): ConversionWrite | null {
    const fields = conversionDeliveryFields(state);
    if (Object.keys(fields).length === 0) {
      settle(state.parkWaiters.splice(0));
      return null;
    }
    const increments = Object.values(state.parked).some((count) => count);
    const write = { marker: increments ? `${worker}-${Date.now()}-${markers++}` : null, fields, waiters: state.parkWaiters.splice(0) };
    state.deliveredAt = null;
    state.requestId = undefined;
    state.parked = {};
    return write;
  }

  async function write(state: State, now: number, force: boolean): Promise<void> {
    const key = `${state.orgId}/${state.conversionId}`;
    const ref = conversionRef(state.orgId, state.conversionId);
    const batch = adminDb().batch();
    const expires = Timestamp.fromMillis(now + RETENTION_MS);
    const hours: Array<[HourTotals, number]> = [];
    for (const [hour, totals] of state.hours) {
      if (totals.written === totals.version) continue;
      batch.set(ref.collection('hours').doc(`${hour}~${worker}`), hourDocument(hour, totals.tally, expires, 'totals'));
      hours.push([totals, totals.version]);
    }
    if (!state.inflight && (force || now - (writtenAt.get(key) ?? 0) >= conversionEveryMs)) state.inflight = takeConversionWrite(state);
    let conversion = state.inflight;
    if (conversion) {
      let snap: DocumentSnapshot;
      try {
        snap = await ref.get();
      } catch (error) {
        failed(state, conversion);
        throw error;
      }
      if (!snap.exists) return drop(state, key);
      if (snap.readTime.toMillis() - snap.updateTime!.toMillis() < DOCUMENT_GAP_MS) {
        // Written less than a second ago (by another worker, or an edit): this write waits for a later flush.
        conversion = null;
      } else {
        if (conversion.marker)
          batch.create(ref.collection('counter_writes').doc(conversion.marker), {
            expires_at: Timestamp.fromMillis(now + MARKER_RETENTION_MS),
          });
        batch.update(ref, conversion.fields, { lastUpdateTime: snap.updateTime });
      }
    }
    const hourWaiters = state.hourWaiters.splice(0);
    if (hours.length === 0 && !conversion) return settle(hourWaiters);
    try {
      await commit(batch);
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === NOT_FOUND && conversion) return drop(state, key, hourWaiters);
      state.hourWaiters.unshift(...hourWaiters);
      // Another worker wrote the conversion's document since we read it: nothing of this batch landed, and
      // all of it goes again at a later flush (its hours are totals, its conversion write is kept).
      if (code === FAILED_PRECONDITION && conversion) return;
      if (code === ALREADY_EXISTS && conversion?.marker) {
        // An earlier try of the conversion's write landed (its answer was lost): done; the hours go again.
        settle(conversion.waiters);
        state.inflight = null;
        writtenAt.set(key, now);
        return write(state, now, false);
      }
      failed(state, conversion);
      throw error;
    }
    state.failures = 0;
    for (const [totals, version] of hours) totals.written = version;
    settle(hourWaiters);
    if (conversion) {
      settle(conversion.waiters);
      state.inflight = null;
      writtenAt.set(key, now);
    }
    forget(state, key, now);
    written(state);
  }

  /**
   * A write (or the read before it) failed. After `maxTries` in a row the messages waiting for it are let go
   * (acknowledged: their records are written), and the counts stay here, tried at every flush. Let go as failed
   * instead, they would come again and be sent, recorded and counted a second time once this write lands. A
   * worker that dies meanwhile loses these counts, not events.
   */
  function failed(state: State, conversion: ConversionWrite | null) {
    state.failures += 1;
    if (state.failures < maxTries) return;
    state.failures = 0;
    settle([...state.hourWaiters.splice(0), ...state.parkWaiters.splice(0), ...(conversion?.waiters.splice(0) ?? [])]);
  }

  /** The conversion is gone: what it counted goes with it, and whoever waits for its writes is let go. */
  function drop(state: State, key: string, waiters: Waiter[] = []) {
    settle([...waiters, ...state.hourWaiters.splice(0), ...(state.inflight?.waiters ?? []), ...state.parkWaiters.splice(0)]);
    states.delete(key);
  }

  /** Forgets hours before the previous one once written, and a conversion with nothing left to write. */
  function forget(state: State, key: string, now: number) {
    const previous = hourOf(new Date(now - 3600_000));
    for (const [hour, totals] of state.hours) if (hour < previous && totals.written === totals.version) state.hours.delete(hour);
    const idle =
      state.hours.size === 0 && !state.inflight && state.parkWaiters.length === 0 && state.hourWaiters.length === 0 && !state.deliveredAt;
    if (idle && Object.keys(state.parked).length === 0) states.delete(key);
  }

  /** When the last flush ended: the one a stopping worker makes waits a whole interval after it. */
  let flushedAt = 0;

  async function flushOnce(force: boolean) {
    const now = Date.now();
    await Promise.all(
      [...states.values()].map(async (state) => {
        try {
          await write(state, now, force);
        } catch (error) {
          log.error(
            { component: 'worker', ...labels({ org: state.orgId, conversion: state.conversionId }), ...errorFields(error) },
            'delivery counters not written; trying again',
          );
        }
      }),
    );
    flushedAt = Date.now();
  }

  const flush = (force = false) => (flushing = flushing.then(() => flushOnce(force)));
  const timer = setInterval(() => void flush(), hourEveryMs);
  timer.unref?.();

  return {
    add(orgId: string, conversionId: string, counts: DeliveryCounts) {
      const state = stateOf(orgId, conversionId);
      let totals = state.hours.get(counts.hour);
      if (!totals && counts.hour < hourOf(new Date(Date.now() - 3600_000))) {
        // Its totals are forgotten: starting them again would overwrite the shard with less.
        log.error(
          { component: 'worker', ...labels({ org: orgId, conversion: conversionId }), hour: counts.hour },
          'delivery counters of a past hour not counted',
        );
      } else {
        if (!totals) state.hours.set(counts.hour, (totals = { tally: {}, version: 0, written: 0 }));
        addTally(totals.tally, counts.tally);
        totals.version += 1;
      }
      if (counts.deliveredAt && (!state.deliveredAt || counts.deliveredAt >= state.deliveredAt)) {
        state.deliveredAt = counts.deliveredAt;
        state.requestId = counts.requestId ?? state.requestId;
      }
      const parks = Object.values(counts.parked).some((count) => count && count > 0);
      for (const [reason, count] of Object.entries(counts.parked) as Array<[ParkReason, number]>)
        if (count) state.parked[reason] = (state.parked[reason] ?? 0) + count;
      return new Promise<void>((resolve, reject) => (parks ? state.parkWaiters : state.hourWaiters).push({ resolve, reject }));
    },
    flush: () => flush(true),
    async stop() {
      clearInterval(timer);
      // The last write waits out the interval since the previous one ended: a document is written once a
      // second at most, shutting down included.
      await flushing;
      const wait = flushedAt + hourEveryMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await flush(true);
      // A conversion's write another worker's had to wait for: tried again once the document's second has passed.
      const unwritten = (state: State) => state.inflight || state.deliveredAt || Object.values(state.parked).some(Boolean);
      for (let tries = 0; tries < 10 && [...states.values()].some(unwritten); tries++) {
        await new Promise((resolve) => setTimeout(resolve, DOCUMENT_GAP_MS));
        await flush(true);
      }
    },
  };
}
