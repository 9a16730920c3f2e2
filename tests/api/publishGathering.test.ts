import { randomUUID } from 'node:crypto';
import { publishConversions } from '@/lib/server/queue/pubsub';
import { leadEvents } from '@/tests/api/helpers/conversions';
import { tapTopic } from '@/tests/api/helpers/queue';
import { TOPICS } from '@/lib/server/queue/pubsub';

// Small publishes (a website's single events) of one source travel together: one message for many requests.

let tap: Awaited<ReturnType<typeof tapTopic>>;
beforeAll(async () => {
  tap = await tapTopic(TOPICS.conversions);
});
afterAll(() => tap.close());

/** The messages published since the last read, of each source asked for: the ids each carries, in order. */
async function messagesOf(...sources: string[]): Promise<Array<Array<{ ids: string[]; attributes: Record<string, string> }>>> {
  const messages = await tap.read();
  return sources.map((source) =>
    messages
      .filter((message) => message.attributes.source === source)
      .map((message) => ({
        ids: (JSON.parse(message.data) as Array<{ id: string }>).map((event) => event.id),
        attributes: message.attributes,
      })),
  );
}

test('single events published at once by one source go as one message, each of them once', async () => {
  const source = `app:${randomUUID()}`;
  const events = leadEvents(40, 'together');
  await Promise.all(events.map((event) => publishConversions([event], { org: 'org-1', source })));
  const [messages] = await messagesOf(source);
  expect(messages).toHaveLength(1);
  expect(messages![0]!.attributes).toMatchObject({ org: 'org-1', source, events: '40' });
  expect(messages![0]!.ids).toEqual(events.map((event) => event.id));
});

test('other sources, a replay and a large publish are messages of their own; a publish awaited alone is not held for company', async () => {
  const [shop, other] = [`app:${randomUUID()}`, `app:${randomUUID()}`];
  await Promise.all([
    publishConversions(leadEvents(1, 'shop-a'), { org: 'org-1', source: shop }),
    publishConversions(leadEvents(1, 'other'), { org: 'org-2', source: other }),
    publishConversions(leadEvents(1, 'replayed'), { org: 'org-1', source: shop, conversion: 'conversion-1', replay: 'parked' }),
    publishConversions(leadEvents(1, 'shop-b'), { org: 'org-1', source: shop }),
    publishConversions(leadEvents(300, 'batch'), { org: 'org-1', source: shop }),
  ]);
  await publishConversions(leadEvents(1, 'later'), { org: 'org-1', source: shop });
  const [shopMessages, otherMessages] = await messagesOf(shop, other);
  const ids = (prefix: string) => shopMessages!.find((message) => message.ids[0]?.startsWith(prefix));
  expect(ids('shop-a')?.ids).toEqual(['shop-a-0', 'shop-b-0']);
  expect(ids('replayed')).toMatchObject({ ids: ['replayed-0'], attributes: { conversion: 'conversion-1', replay: 'parked', events: '1' } });
  expect(ids('batch')?.ids).toHaveLength(300);
  expect(ids('later')?.ids).toEqual(['later-0']);
  expect(shopMessages).toHaveLength(4);
  expect(otherMessages!.map((message) => message.ids)).toEqual([['other-0']]);
});

test('a gathered message never holds more than 500 events: the next ones start another', async () => {
  const source = `app:${randomUUID()}`;
  const events = leadEvents(510, 'many');
  await Promise.all(
    Array.from({ length: 51 }, (_, index) => publishConversions(events.slice(index * 10, index * 10 + 10), { org: 'org-1', source })),
  );
  const [messages] = await messagesOf(source);
  expect(messages!.map((message) => message.ids.length)).toEqual([500, 10]);
  expect(messages!.flatMap((message) => message.ids)).toEqual(events.map((event) => event.id));
});
