import { isReplay, type Batch, type Gathered, type Item } from '@/lib/server/delivery/batch';
import type { Settle } from '@/lib/server/delivery/tickets';
import { errorFields, labels, log } from '@/lib/server/log';
import type { publishConversions } from '@/lib/server/queue/pubsub';

/** Where events set aside are published again for their conversion alone, and how their messages are settled. */
export interface SetAsideDeps {
  publish: typeof publishConversions;
  settle: Settle;
}

/**
 * A batch that is to wait (its lane is full, or the worker stops while it waits for a retry): its events are
 * published again for its conversion alone, with its attempts and the time before which it is not sent, and
 * its messages may be acknowledged. When that time comes the message is taken again (one received early is
 * given back to Pub/Sub until then). Answers the events that could not be published: they wait in hand.
 */
export async function publishToWait(batch: Batch, delayMs: number, { publish, settle }: SetAsideDeps): Promise<Item[]> {
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
      publish(
        half.items.map((item) => item.event),
        half.attributes,
      ),
    ),
  );
  return halves.flatMap((half, index) => {
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
}

/**
 * A batch whose outcome was not recorded. Events of messages routed by source are published again for this
 * conversion alone, and their messages may then be acknowledged: neither the other conversions their
 * messages went to nor the other batches hear of them again. Events of a message already meant for this
 * conversion alone (a replay, a read, an event set aside before) leave it unacknowledged: Pub/Sub gives it
 * back after its backoff and dead-letters it after its last attempt.
 */
export async function setAsideFailed(entry: Gathered, items: Item[], { publish, settle }: SetAsideDeps): Promise<void> {
  const routed = items.filter((item) => !item.ticket.message.attributes.conversion);
  items.filter((item) => item.ticket.message.attributes.conversion).forEach((item) => settle(item.ticket, false));
  if (routed.length === 0) return;
  let published = true;
  try {
    const { source } = routed[0]!.ticket.message.attributes;
    await publish(
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
