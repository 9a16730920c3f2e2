import { errorFields, log } from '@/lib/server/log';
import { ensureTopology, eventsInMessage, pubsub, subscriberClient, SUBSCRIPTIONS, TOPICS } from '@/lib/server/queue/pubsub';
import {
  deleteDeadLetters,
  listDeadLetters,
  saveDeadLetters,
  type DeadLetter,
  type DeadLetterCounts,
  type DeadLetterQueue,
} from '@/lib/server/repos/deadLetters';

/**
 * The dead-letter reader: drains the two dead-letter subscriptions (conversion-dead-letters,
 * sync-dead-letters) into stored copies in Firestore, acknowledging a message only once its copy is
 * written, so a count survives the topic's retention and nothing is lost between the two. Replay
 * publishes the copies back to the topic each message first went to, then removes them.
 */

const DEAD_LETTER_SUBSCRIPTIONS: Record<DeadLetterQueue, string> = {
  conversions: SUBSCRIPTIONS.deadLetters,
  sync: SUBSCRIPTIONS.syncDeadLetters,
};

/** Attributes Pub/Sub adds to a dead-lettered message; a replay leaves them out. */
const PUBSUB_DEAD_LETTER_ATTRIBUTE = /^CloudPubSubDeadLetter/;

/** What a received dead letter is: whose, how heavy, and where it goes back to. */
export function describeDeadLetter(
  queue: DeadLetterQueue,
  messageId: string,
  data: Buffer,
  attributes: Record<string, string>,
): DeadLetter {
  if (queue === 'conversions') {
    return {
      queue,
      messageId,
      data,
      attributes,
      org: attributes.org || null,
      topic: TOPICS.conversions,
      events: eventsInMessage(attributes),
    };
  }
  let org: string | null = attributes.org || null;
  if (!org) {
    try {
      const job = JSON.parse(data.toString('utf8')) as { org?: unknown };
      if (typeof job.org === 'string' && job.org) org = job.org;
    } catch {
      // Not a job we can read: counted without an organization.
    }
  }
  // Backfill jobs say so in `queue` (publishSyncJobs); Pub/Sub also names the subscription that gave up.
  const backfill =
    attributes.queue === 'backfill' ||
    (attributes.CloudPubSubDeadLetterSourceSubscription ?? '').endsWith(`/${SUBSCRIPTIONS.backfillWorkers}`);
  return { queue, messageId, data, attributes, org, topic: backfill ? TOPICS.backfillJobs : TOPICS.syncJobs, events: 1 };
}

/**
 * Moves every dead letter waiting in the two subscriptions into Firestore; resolves with how many were
 * stored. A message is acknowledged only after its copy is written: a reader that dies in between
 * leaves it for the next, which writes the same copy again.
 */
export async function drainDeadLetters(): Promise<number> {
  await ensureTopology();
  const client = pubsub();
  const subscriber = subscriberClient();
  let stored = 0;
  try {
    for (const [queue, name] of Object.entries(DEAD_LETTER_SUBSCRIPTIONS) as Array<[DeadLetterQueue, string]>) {
      const subscription = `projects/${client.projectId}/subscriptions/${name}`;
      for (;;) {
        // returnImmediately: an empty subscription answers at once.
        const [response] = await subscriber.pull({ subscription, maxMessages: 100, returnImmediately: true });
        const received = response.receivedMessages ?? [];
        if (received.length === 0) break;
        const letters = received.map((item) =>
          describeDeadLetter(
            queue,
            String(item.message!.messageId),
            Buffer.from((item.message!.data ?? new Uint8Array()) as Uint8Array),
            (item.message!.attributes ?? {}) as Record<string, string>,
          ),
        );
        // Each copy on its own: one that cannot be written (stays for the next reader) holds up no other.
        const saved = await Promise.allSettled(letters.map((letter) => saveDeadLetters([letter])));
        const ackIds = received.filter((_, index) => saved[index]!.status === 'fulfilled').map((item) => item.ackId!);
        if (ackIds.length > 0) await subscriber.acknowledge({ subscription, ackIds });
        stored += ackIds.length;
        const failed = saved.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        if (failed) throw failed.reason;
      }
    }
  } finally {
    await subscriber.close();
  }
  return stored;
}

/** Drains the dead-letter subscriptions every `intervalMs` (in the worker). */
export function startDeadLetterReader({ intervalMs }: { intervalMs: number }): { stop(): Promise<void> } {
  let running = true;
  let current: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (!running) return;
    current = drainDeadLetters()
      .then((stored) => {
        if (stored > 0)
          log.error(
            { component: 'dead-letters', count: stored },
            'messages set aside after 20 attempts; npm run dead-letters -- --replay sends them again',
          );
      })
      .catch((error: unknown) =>
        log.error({ component: 'dead-letters', ...errorFields(error) }, 'could not read the dead-letter subscriptions'),
      );
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    async stop() {
      running = false;
      clearInterval(timer);
      await current;
    },
  };
}

/**
 * Publishes stored dead letters back to the topic each first went to (without Pub/Sub's dead-letter
 * attributes), then removes their copies; for one organization and queue when given. A crash between
 * the two publishes a message twice: conversions are deduplicated by event id, sync jobs are idempotent.
 */
export async function replayDeadLetters(filter: { orgId?: string; queue?: DeadLetterQueue } = {}): Promise<DeadLetterCounts> {
  await ensureTopology();
  const client = pubsub();
  const replayed: DeadLetterCounts = { messages: 0, events: 0 };
  for (;;) {
    const letters = await listDeadLetters({ ...filter, limit: 100 });
    if (letters.length === 0) return replayed;
    await Promise.all(
      letters.map((letter) =>
        client.topic(letter.topic).publishMessage({
          data: letter.data,
          attributes: Object.fromEntries(Object.entries(letter.attributes).filter(([key]) => !PUBSUB_DEAD_LETTER_ATTRIBUTE.test(key))),
        }),
      ),
    );
    await deleteDeadLetters(letters);
    replayed.messages += letters.length;
    replayed.events += letters.reduce((sum, letter) => sum + letter.events, 0);
  }
}
