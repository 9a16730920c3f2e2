import { randomUUID } from 'node:crypto';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { ensureTopology, parseConversionMessage, pubsub, subscriberClient, TOPICS } from '@/lib/server/queue/pubsub';

/** A message as a tap reads it: its text and attributes. */
export interface TappedMessage {
  data: string;
  attributes: Record<string, string>;
}

/**
 * A tap on a topic: its own subscription, so a test reads exactly what was published there (the
 * workers' subscriptions are left alone).
 */
export async function tapTopic(topic: string) {
  await ensureTopology();
  const client = pubsub();
  const name = `test-tap-${randomUUID()}`;
  await client.topic(topic).createSubscription(name);
  const subscriber = subscriberClient();
  const path = `projects/${client.projectId}/subscriptions/${name}`;

  /** Every message published since the tap was made (and not read yet). */
  async function read(): Promise<TappedMessage[]> {
    const messages: TappedMessage[] = [];
    for (let empty = 0; empty < 3;) {
      // returnImmediately: an empty subscription answers at once instead of holding the request open.
      const [response] = await subscriber.pull({ subscription: path, maxMessages: 1000, returnImmediately: true });
      const received = response.receivedMessages ?? [];
      if (received.length === 0) {
        empty += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      await subscriber.acknowledge({ subscription: path, ackIds: received.map((item) => item.ackId!) });
      for (const item of received) {
        messages.push({
          data: Buffer.from(item.message!.data as Uint8Array).toString('utf8'),
          attributes: (item.message!.attributes ?? {}) as Record<string, string>,
        });
      }
    }
    return messages;
  }

  return {
    read,
    async close() {
      await client.subscription(name).delete();
      await subscriber.close();
    },
  };
}

/** A tap on the conversions topic that reads events: a message that does not follow the schema fails the test. */
export async function tapConversions() {
  const tap = await tapTopic(TOPICS.conversions);

  /** Every event published since the tap was made (and not read yet), with its message's attributes. */
  async function read(): Promise<Array<{ event: ConversionEvent; attributes: Record<string, string> }>> {
    return (await tap.read()).flatMap(({ data, attributes }) => {
      const parsed = parseConversionMessage(Buffer.from(data, 'utf8'), attributes);
      if (!parsed || parsed.unreadable.length > 0)
        throw new Error(`A message on the conversions topic does not follow the schema: ${data.slice(0, 200)}`);
      return parsed.events.map((event) => ({ event, attributes }));
    });
  }

  return { read, close: tap.close };
}
