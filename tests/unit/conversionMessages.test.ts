/** @jest-environment node */
import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { createConversionRouter, type QueueMessage } from '@/lib/server/conversions/router';
import { EVENTS_PER_MESSAGE, eventsInMessage, packEvents, parseConversionMessage } from '@/lib/server/queue/pubsub';

const event = (id: string, name = 'Lead', pageUrl = 'https://shop.example/thanks'): ConversionEvent => ({
  id,
  name,
  time: 1_800_000_000,
  value: 10,
  currency: 'USD',
  user: { email: 'a'.repeat(64) },
  clickIds: { fbp: 'fb.1.1.1' },
  context: { pageUrl, actionSource: 'website' },
});
const events = (count: number, prefix: string, name?: string) => Array.from({ length: count }, (_, index) => event(`${prefix}-${index}`, name));
const attributes = { org: 'org1', source: 'app:app1' };

describe('events packed into messages', () => {
  test('1,201 events travel as three messages of at most 500, in order, each saying how many it holds', () => {
    const list = events(1201, 'e');
    const messages = packEvents(list);
    expect(messages.map((message) => message.count)).toEqual([EVENTS_PER_MESSAGE, EVENTS_PER_MESSAGE, 201]);
    const read = messages.flatMap((message) => parseConversionMessage(message.data, { ...attributes, events: String(message.count) })!.events);
    expect(read).toEqual(list);
    expect(eventsInMessage({ ...attributes, events: '500' })).toBe(500);
  });

  test('large events close a message before it passes about 1 MB', () => {
    // Events of about 2.1 kB each: about 470 fit in 1 MB, fewer than 500.
    const list = Array.from({ length: 600 }, (_, index) => event(`big-${index}`, 'Lead', `https://shop.example/${'p'.repeat(1990)}`));
    const messages = packEvents(list);
    expect(messages.length).toBe(2);
    for (const message of messages) expect(message.data.length).toBeLessThanOrEqual(1_000_000);
    expect(messages.reduce((sum, message) => sum + message.count, 0)).toBe(600);
  });

  test('a message published before packing (one event, no count) is read as one event', () => {
    const single = event('old-1');
    expect(parseConversionMessage(Buffer.from(JSON.stringify(single)), attributes)).toEqual({ events: [single], dropped: 0, attributes });
    expect(eventsInMessage(attributes)).toBe(1);
  });

  test('an event that breaks the schema is left out and counted; bad attributes or text refuse the message', () => {
    const data = Buffer.from(JSON.stringify([event('ok-1'), { ...event('bad-1'), user: { email: 'clear@example.com' } }]));
    expect(parseConversionMessage(data, attributes)).toMatchObject({ events: [{ id: 'ok-1' }], dropped: 1 });
    expect(parseConversionMessage(data, { org: 'org1', source: 'nowhere' })).toBeNull();
    expect(parseConversionMessage(Buffer.from('not json'), attributes)).toBeNull();
  });
});

describe('the router and packed messages', () => {
  const conversion = (id: string, names: string[] = []): Conversion =>
    ({
      id,
      status: 'active',
      destination: { platform: 'meta_ads' },
      mapping: { events: names, value: { mode: 'event' }, identifiers: ['email'] },
    }) as unknown as Conversion;

  /** A message as the puller hands it over, which records whether it was acknowledged. */
  function messageOf(list: ConversionEvent[], id: string) {
    const [packed, ...more] = packEvents(list);
    if (more.length > 0) throw new Error('A test message holds at most 500 events.');
    const settled: Array<'ack' | 'nack'> = [];
    const message: QueueMessage = {
      id,
      data: packed!.data,
      attributes: { ...attributes, events: String(packed!.count) },
      ack: () => settled.push('ack'),
      nack: () => settled.push('nack'),
    };
    return { message, settled };
  }

  /** Waits until every message has been acknowledged or given back. */
  async function settledAll(list: Array<{ settled: unknown[] }>) {
    while (list.some(({ settled }) => settled.length === 0)) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  function routerWith(conversions: Conversion[], deliver: (conversion: Conversion, batch: ConversionEvent[]) => Promise<void>) {
    return createConversionRouter({
      lingerMs: 20,
      lookup: { bySource: async () => conversions, byId: async (_org, id) => conversions.filter((candidate) => candidate.id === id) },
      deliver: async (_orgId, target, batch) => {
        await deliver(target, batch);
        return { rows: [], latencyMs: 0 };
      },
    });
  }

  test('three messages of 500 make Meta batches of 1,000 and 500; each message is acknowledged once all its events are recorded', async () => {
    const batches: number[] = [];
    const router = routerWith([conversion('c1')], async (_conversion, batch) => void batches.push(batch.length));
    const messages = ['m1', 'm2', 'm3'].map((id) => messageOf(events(500, id), id));
    for (const { message } of messages) router.handle(message);
    await settledAll(messages);
    expect(batches).toEqual([1000, 500]);
    expect(messages.map(({ settled }) => settled)).toEqual([['ack'], ['ack'], ['ack']]);
  });

  test('a message is acknowledged only when every batch holding its events was recorded', async () => {
    let calls = 0;
    const router = routerWith([conversion('c1')], async () => {
      calls += 1;
      if (calls === 2) throw new Error('Firestore is unavailable');
    });
    // Batches of 1,000: m1's 400, m2's 500 and m3's first 100 (recorded), then m3's last 400 (not recorded).
    const list = [messageOf(events(400, 'm1'), 'm1'), messageOf(events(500, 'm2'), 'm2'), messageOf(events(500, 'm3'), 'm3')];
    for (const { message } of list) router.handle(message);
    await settledAll(list);
    expect(list.map(({ settled }) => settled)).toEqual([['ack'], ['ack'], ['nack']]);
  });

  test('one message feeding two conversions is acknowledged after both have recorded the events each takes', async () => {
    const taken = new Map<string, string[]>();
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const router = routerWith([conversion('leads', ['Lead']), conversion('buys', ['Purchase'])], async (target, batch) => {
      taken.set(target.id, batch.map((item) => item.id));
      if (target.id === 'buys') await slow;
    });
    const { message, settled } = messageOf([...events(3, 'lead', 'Lead'), ...events(2, 'buy', 'Purchase')], 'mixed');
    router.handle(message);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(taken.get('leads')).toEqual(['lead-0', 'lead-1', 'lead-2']);
    expect(settled).toEqual([]);
    release();
    await settledAll([{ settled }]);
    expect(taken.get('buys')).toEqual(['buy-0', 'buy-1']);
    expect(settled).toEqual(['ack']);
  });

  test('a message none of whose events any conversion takes is acknowledged at once', async () => {
    const router = routerWith([conversion('buys', ['Purchase'])], async () => undefined);
    const { message, settled } = messageOf(events(10, 'lead', 'Lead'), 'leads');
    router.handle(message);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toEqual(['ack']);
  });
});
