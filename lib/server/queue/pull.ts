import { errorFields, log } from '@/lib/server/log';
import { pubsub, subscriberClient } from '@/lib/server/queue/pubsub';
import type { QueueMessage } from '@/lib/server/queue/message';

/**
 * Pulls a subscription with unary Pull requests, up to `maxOutstanding` in hand at once (messages,
 * or what they weigh: the conversion worker counts events, up to 500 a message), and keeps their
 * leases alive (modifyAckDeadline) until each is acknowledged or nacked. Acks and nacks are sent in
 * batches. A Pull asks for as many messages as the free room holds at the weight seen lately, and never
 * for more than could pass twice the limit if every one were as heavy as a message can be: a run of heavy
 * messages after light ones holds at most twice the limit (and light ones come fewer at a Pull than the
 * mean alone would ask for: limit × 2 ÷ the heaviest).
 *
 * Why not the client library's streaming pull: the Pub/Sub emulator pushes more than the flow
 * control asks for, and when a worker is killed it keeps the excess leased indefinitely — a
 * SIGKILL test lost them. With unary pulls a worker holds only what it asked for, and what a dead
 * worker held comes back once its ack deadline passes, on the emulator as on Pub/Sub.
 */

export interface PullOptions {
  /** Messages per Pull request (Pub/Sub returns at most 1,000). */
  batch?: number;
  /** What is in hand (received, not yet acknowledged) at most: messages, or what `weigh` counts. */
  maxOutstanding?: number;
  /** How much of `maxOutstanding` a message takes (e.g. the events it holds); 1 by default. */
  weigh?: (attributes: Record<string, string>) => number;
  /**
   * The heaviest a message can be (the conversion worker: events per message). The first Pull assumes
   * it, and no Pull asks for more messages than would keep what is in hand within twice
   * `maxOutstanding` if each weighed that much.
   */
  maxWeight?: number;
  ackDeadlineSeconds?: number;
}

export interface Puller {
  /**
   * Stops pulling, waits for the messages in hand to be settled, sends their acks and nacks. `finish` (the
   * router's drain) runs once the last Pull is in: acks keep going out and leases kept alive until it resolves.
   */
  stop(finish?: () => Promise<unknown>): Promise<void>;
}

type v1PullResponse = {
  receivedMessages?: Array<{
    ackId?: string | null;
    message?: { messageId?: string | null; data?: Uint8Array | string | null; attributes?: Record<string, string> | null } | null;
  }> | null;
};

/** How long one Pull may wait for messages. */
const PULL_TIMEOUT_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What is in hand at most when a caller says nothing (the delivery worker says WORKER_MAX_EVENTS: router.ts). */
export const MAX_OUTSTANDING = 5000;

/** What a Pull's size depends on: the limits, the weight seen lately, what is in hand and asked for. */
export interface PullState {
  batch: number;
  maxOutstanding: number;
  maxWeight: number;
  meanWeight: number;
  /** The weight of the messages in hand. */
  held: number;
  /** Messages asked for by Pulls still under way. */
  reserved: number;
}

/**
 * How many messages the next Pull asks for; 0: wait. As many as the free room holds at the mean weight seen
 * lately, but never more than keeps what is in hand within twice `maxOutstanding` if each were as heavy as a
 * message can be (a run of heavy messages after light ones). At least one when nothing is in hand or asked
 * for, so a heavy estimate cannot stall; none while a Pull would bring only a handful into little room.
 */
export function messagesToPull({ batch, maxOutstanding, maxWeight, meanWeight, held, reserved }: PullState): number {
  const room = maxOutstanding - held - reserved * meanWeight;
  const worstCase = Math.floor((2 * maxOutstanding - held - reserved * maxWeight) / maxWeight);
  const wanted = Math.min(batch, Math.max(held + reserved === 0 ? 1 : 0, Math.min(Math.floor(room / meanWeight), worstCase)));
  return wanted < batch && held > 0 && room < maxOutstanding / 4 ? 0 : wanted;
}

export function pull(subscription: string, handle: (message: QueueMessage) => void, options: PullOptions = {}): Puller {
  const batch = options.batch ?? 1000;
  const maxOutstanding = options.maxOutstanding ?? MAX_OUTSTANDING;
  const deadline = options.ackDeadlineSeconds ?? 20;
  const weigh = options.weigh ?? (() => 1);
  const client = pubsub();
  const subscriber = subscriberClient();
  const path = `projects/${client.projectId}/subscriptions/${subscription}`;

  /** Ack id → weight of each message in hand, and their sum. */
  const outstanding = new Map<string, number>();
  let held = 0;
  const maxWeight = Math.min(maxOutstanding, Math.max(1, options.maxWeight ?? 1));
  /** The mean weight of recent messages (halved each Pull towards the last one's mean). */
  let meanWeight = maxWeight;
  let acks: string[] = [];
  let nacks: string[] = [];
  /** Messages to come again after a delay (seconds → ack ids): a platform said when it will answer. */
  let delayed = new Map<number, string[]>();
  let running = true;

  async function flush() {
    const [ackIds, nackIds, later] = [acks, nacks, delayed];
    acks = [];
    nacks = [];
    delayed = new Map();
    for (let start = 0; start < ackIds.length; start += 1000)
      await subscriber.acknowledge({ subscription: path, ackIds: ackIds.slice(start, start + 1000) });
    for (let start = 0; start < nackIds.length; start += 1000) {
      await subscriber.modifyAckDeadline({ subscription: path, ackIds: nackIds.slice(start, start + 1000), ackDeadlineSeconds: 0 });
    }
    for (const [seconds, ids] of later) {
      for (let start = 0; start < ids.length; start += 1000) {
        await subscriber.modifyAckDeadline({ subscription: path, ackIds: ids.slice(start, start + 1000), ackDeadlineSeconds: seconds });
      }
    }
  }

  async function extendLeases() {
    const ackIds = [...outstanding.keys()];
    for (let start = 0; start < ackIds.length; start += 1000) {
      await subscriber.modifyAckDeadline({ subscription: path, ackIds: ackIds.slice(start, start + 1000), ackDeadlineSeconds: deadline });
    }
  }

  const flushing = setInterval(
    () =>
      void flush().catch((error) => log.error({ component: 'queue', ...errorFields(error) }, 'ack failed; the messages will come again')),
    100,
  );
  const leasing = setInterval(
    () => void extendLeases().catch((error) => log.error({ component: 'queue', ...errorFields(error) }, 'lease extension failed')),
    (deadline * 1000) / 3,
  );

  /** Messages asked for by pulls still under way: two loops must not both take the last free places. */
  let reserved = 0;

  async function loop() {
    while (running) {
      const wanted = messagesToPull({ batch, maxOutstanding, maxWeight, meanWeight, held, reserved });
      if (wanted < 1) {
        // Little room: wait for some to be settled rather than pull a handful at a time.
        await sleep(20);
        continue;
      }
      reserved += wanted;
      let received: v1PullResponse['receivedMessages'];
      try {
        // A short long-poll: a stopping worker waits for its last pull, so none is left open for the
        // emulator to fill with messages nobody will take (they would wait out the ack deadline).
        const [response] = await subscriber.pull({ subscription: path, maxMessages: wanted }, { timeout: PULL_TIMEOUT_MS, maxRetries: 0 });
        received = response.receivedMessages;
        reserved -= wanted;
      } catch (error) {
        reserved -= wanted;
        // 4 = DEADLINE_EXCEEDED: nothing came within the long-poll; ask again.
        if (running && (error as { code?: number }).code !== 4) {
          log.error({ component: 'queue', ...errorFields(error) }, 'pull failed; trying again');
          await sleep(1000);
        }
        continue;
      }
      if (!received?.length) {
        await sleep(100);
        continue;
      }
      let weights = 0;
      for (const item of received) {
        const ackId = item.ackId!;
        if (!running) {
          nacks.push(ackId);
          continue;
        }
        const message = item.message!;
        const attributes = (message.attributes ?? {}) as Record<string, string>;
        const weight = Math.min(maxWeight, Math.max(1, weigh(attributes) || 1));
        weights += weight;
        outstanding.set(ackId, weight);
        held += weight;
        let settled = false;
        const settle = (into: 'ack' | 'nack', delaySeconds = 0) => {
          if (settled) return;
          settled = true;
          outstanding.delete(ackId);
          held -= weight;
          if (into === 'ack') acks.push(ackId);
          else if (delaySeconds > 0) {
            // The lease runs out after the delay and the message comes again (Pub/Sub allows up to 600 s).
            const seconds = Math.min(600, Math.ceil(delaySeconds));
            delayed.set(seconds, [...(delayed.get(seconds) ?? []), ackId]);
          } else nacks.push(ackId);
        };
        handle({
          id: String(message.messageId),
          data: Buffer.from(message.data as Uint8Array),
          attributes,
          ack: () => settle('ack'),
          nack: (delaySeconds) => settle('nack', delaySeconds),
        });
      }
      meanWeight = (meanWeight + weights / received.length) / 2;
    }
  }

  const loops = [loop(), loop()];

  return {
    async stop(finish) {
      running = false;
      // The last pulls end within their long-poll; what they bring is nacked (sent again at once).
      await Promise.all(loops);
      // The handler finishes what it holds (a drain): however long its platforms take, its acks still go out.
      if (finish)
        await finish().catch((error) => log.error({ component: 'queue', ...errorFields(error) }, 'finishing the messages in hand failed'));
      // What is in hand is being finished by its handler (a drain); wait for its acks, ten seconds at most.
      const until = Date.now() + 10_000;
      while (outstanding.size > 0 && Date.now() < until) await sleep(50);
      clearInterval(flushing);
      clearInterval(leasing);
      await flush();
      await subscriber.close();
    },
  };
}
