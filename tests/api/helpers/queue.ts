import { randomUUID } from 'node:crypto';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { ensureTopology, pubsub, subscriberClient, TOPICS } from '@/lib/server/queue/pubsub';

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

  /** Everything published since the tap was made (and not read yet), oldest first. */
  async function read(): Promise<Array<{ event: ConversionEvent; attributes: Record<string, string> }>> {
    const messages: Array<{ event: ConversionEvent; attributes: Record<string, string> }> = [];
    for (let empty = 0; empty < 3; ) {
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
        messages.push({ event: JSON.parse(Buffer.from(item.message!.data as Uint8Array).toString('utf8')), attributes: (item.message!.attributes ?? {}) as Record<string, string> });
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
