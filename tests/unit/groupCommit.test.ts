/** @jest-environment node */
import { groupCommit, type OutgoingMessage } from '@/lib/server/queue/groupCommit';

/** A Publish stand-in whose requests answer when the test says: what each request carried, as event ids. */
function fakePublish() {
  const requests: Array<{ messages: Array<{ attributes: Record<string, string>; ids: string[] }>; answer: (error?: Error) => void }> = [];
  const send = (messages: OutgoingMessage[]) =>
    new Promise<void>((resolve, reject) => {
      requests.push({
        messages: messages.map(({ data, attributes }) => ({ attributes, ids: JSON.parse(data.toString()) as string[] })),
        answer: (error) => (error ? reject(error) : resolve()),
      });
    });
  return { requests, send };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const texts = (...ids: string[]) => ids.map((id) => JSON.stringify(id));
const shop = { org: 'o1', source: 'app:shop' };

test('a lone publish leaves at the end of its turn, without waiting for company', async () => {
  const { requests, send } = fakePublish();
  const publisher = groupCommit(send, { inFlight: 2, maxEvents: 500, maxBytes: 1_000_000 });
  const published = publisher.gather('shop', shop, texts('a'));
  expect(requests).toHaveLength(0);
  await turn();
  expect(requests.map((request) => request.messages)).toEqual([[{ attributes: { ...shop, events: '1' }, ids: ['a'] }]]);
  requests[0]!.answer();
  await expect(published).resolves.toBeUndefined();
});

test('while the requests allowed are under way, publishes of one source gather into one message for the next request', async () => {
  const { requests, send } = fakePublish();
  const publisher = groupCommit(send, { inFlight: 1, maxEvents: 500, maxBytes: 1_000_000 });
  const first = publisher.gather('shop', shop, texts('a'));
  await turn();
  const later = [publisher.gather('shop', shop, texts('b')), publisher.gather('other', { org: 'o2', source: 'app:x' }, texts('x'))];
  await turn();
  const more = publisher.gather('shop', shop, texts('c'));
  await turn();
  // Nothing else leaves before the request under way answers.
  expect(requests).toHaveLength(1);
  let laterDone = false;
  void Promise.all(later).then(() => (laterDone = true));
  requests[0]!.answer();
  await first;
  await turn();
  expect(laterDone).toBe(false);
  expect(requests[1]!.messages.map((message) => message.ids)).toEqual([['b', 'c'], ['x']]);
  requests[1]!.answer();
  await Promise.all([...later, more]);
});

test('a failed request fails exactly the publishes it held', async () => {
  const { requests, send } = fakePublish();
  const publisher = groupCommit(send, { inFlight: 1, maxEvents: 500, maxBytes: 1_000_000 });
  const first = publisher.gather('shop', shop, texts('a'));
  await turn();
  const second = publisher.gather('shop', shop, texts('b'));
  requests[0]!.answer(new Error('Pub/Sub unavailable'));
  await expect(first).rejects.toThrow('Pub/Sub unavailable');
  await turn();
  requests[1]!.answer();
  await expect(second).resolves.toBeUndefined();
});

test('a message holds at most maxEvents; a large publish is a message of its own, never joined', async () => {
  const { requests, send } = fakePublish();
  const publisher = groupCommit(send, { inFlight: 2, maxEvents: 3, maxBytes: 1_000_000 });
  const done = Promise.all([
    publisher.gather('shop', shop, texts('a', 'b')),
    publisher.alone(shop, texts('big1', 'big2')),
    publisher.gather('shop', shop, texts('c', 'd')),
  ]);
  await turn();
  expect(requests).toHaveLength(1);
  expect(requests[0]!.messages.map((message) => message.ids)).toEqual([['big1', 'big2'], ['a', 'b', 'c'], ['d']]);
  requests[0]!.answer();
  await done;
});

test('a request carries at most requestMessages messages; the rest go in the next one', async () => {
  const { requests, send } = fakePublish();
  const publisher = groupCommit(send, { inFlight: 1, maxEvents: 500, maxBytes: 1_000_000, requestMessages: 2 });
  const done = Promise.all(
    ['s1', 's2', 's3'].map((source) => publisher.gather(source, { org: 'o', source: `app:${source}` }, texts(source))),
  );
  await turn();
  expect(requests[0]!.messages.map((message) => message.ids)).toEqual([['s1'], ['s2']]);
  requests[0]!.answer();
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect(requests[1]!.messages.map((message) => message.ids)).toEqual([['s3']]);
  requests[1]!.answer();
  await done;
});
