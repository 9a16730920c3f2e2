import { randomUUID } from 'node:crypto';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { ensureTopology, parseConversionMessage, pubsub, subscriberClient, TOPICS } from '@/lib/server/queue/pubsub';

/**
 * A tap on the conversions topic: its own subscription, so a test reads exactly what ingest
 * published (the delivery subscription is left alone).
 */
export async function tapConversions() {
  await ensureTopology();
  const client = pubsub();
  const name = `test-tap-${randomUUID()}`;
  await client.topic(TOPICS.conversions).createSubscription(name);
  const subscriber = subscriberClient();
  const path = `projects/${client.projectId}/subscriptions/${name}`;

  /** Every event published since the tap was made (and not read yet), with its message's attributes. */
  async function read(): Promise<Array<{ event: ConversionEvent; attributes: Record<string, string> }>> {
    const messages: Array<{ event: ConversionEvent; attributes: Record<string, string> }> = [];
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
        const attributes = (item.message!.attributes ?? {}) as Record<string, string>;
        const parsed = parseConversionMessage(Buffer.from(item.message!.data as Uint8Array), attributes);
        if (!parsed || parsed.dropped > 0)
          throw new Error(
            `A message on the conversions topic does not follow the schema: ${Buffer.from(item.message!.data as Uint8Array)
              .toString('utf8')
              .slice(0, 200)}`,
          );
        for (const event of parsed.events) messages.push({ event, attributes });
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
