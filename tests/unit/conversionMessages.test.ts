/** @jest-environment node */
import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { createConversionRouter } from '@/lib/server/delivery/router';
import type { QueueMessage } from '@/lib/server/queue/message';
import { EVENTS_PER_MESSAGE, eventsInMessage, packEvents, parseConversionMessage } from '@/lib/server/queue/pubsub';
import { messagesToPull } from '@/lib/server/queue/pull';

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
const events = (count: number, prefix: string, name?: string) =>
  Array.from({ length: count }, (_, index) => event(`${prefix}-${index}`, name));
const attributes = { org: 'org1', source: 'app:app1' };

describe('events packed into messages', () => {
  test('1,201 events travel as three messages of at most 500, in order, each saying how many it holds', () => {
    const list = events(1201, 'e');
    const messages = packEvents(list);
    expect(EVENTS_PER_MESSAGE).toBe(500);
    expect(messages.map((message) => message.count)).toEqual([500, 500, 201]);
    const read = messages.flatMap(
      (message) => parseConversionMessage(message.data, { ...attributes, events: String(message.count) })!.events,
    );
    expect(read).toEqual(list);
    expect(eventsInMessage({ ...attributes, events: '500' })).toBe(500);
    // A count no publisher of ours writes still weighs a whole number of events.
    expect([
      eventsInMessage({ ...attributes, events: '2.5' }),
      eventsInMessage({ ...attributes, events: '-3' }),
      eventsInMessage({ ...attributes, events: 'many' }),
    ]).toEqual([2, 1, 1]);
  });

  test('large events close a message before it passes 1 MB, counted in bytes, not characters', () => {
    // Pages of 4,000 three-byte characters: about 12.3 kB an event, so 81 fit in 1 MB (a count of characters would let about 230 in: nearly 3 MB).
    const list = Array.from({ length: 200 }, (_, index) => event(`big-${index}`, 'Lead', `https://shop.example/${'€'.repeat(4000)}`));
    const messages = packEvents(list);
    expect(messages.map((message) => message.count)).toEqual([81, 81, 38]);
    for (const message of messages) expect(message.data.length).toBeLessThanOrEqual(1_000_000);
  });

  test('a message published before packing (one event, no count) is read as one event', () => {
    const single = event('old-1');
    expect(parseConversionMessage(Buffer.from(JSON.stringify(single)), attributes)).toEqual({
      events: [single],
      unreadable: [],
      attributes,
    });
    expect(eventsInMessage(attributes)).toBe(1);
  });

  test('an event that breaks the schema is left out and counted; bad attributes or text refuse the message', () => {
    const data = Buffer.from(JSON.stringify([event('ok-1'), { ...event('bad-1'), user: { email: 'clear@example.com' } }]));
    expect(parseConversionMessage(data, attributes)).toMatchObject({ events: [{ id: 'ok-1' }], unreadable: [{ id: 'bad-1' }] });
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
  function messageOf(list: ConversionEvent[], id: string, extra: Record<string, string> = {}) {
    const [packed, ...more] = packEvents(list);
    if (more.length > 0) throw new Error(`A test message holds at most ${EVENTS_PER_MESSAGE} events.`);
    const settled: Array<'ack' | 'nack'> = [];
    const message: QueueMessage = {
      id,
      data: packed!.data,
      attributes: { ...attributes, ...extra, events: String(packed!.count) },
      ack: () => settled.push('ack'),
      nack: () => settled.push('nack'),
    };
    return { message, settled };
  }

  /** Waits until every message has been acknowledged or given back. */
  async function settledAll(list: Array<{ settled: unknown[] }>) {
    while (list.some(({ settled }) => settled.length === 0)) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  /** What the router published again for one conversion: a failed batch's events. */
  let setAside: Array<{ ids: string[]; attributes: Record<string, string | undefined> }> = [];
  let setAsideFails = false;
  beforeEach(() => {
    setAside = [];
    setAsideFails = false;
  });

  function routerWith(conversions: Conversion[], deliver: (conversion: Conversion, batch: ConversionEvent[]) => Promise<void>) {
    return createConversionRouter({
      lingerMs: 20,
      setAside: async (list, attributes) => {
        if (setAsideFails) throw new Error('Pub/Sub is unavailable');
        setAside.push({ ids: list.map((item) => item.id), attributes: { ...attributes } });
      },
      lookup: { bySource: async () => conversions, byId: async (_org, id) => conversions.filter((candidate) => candidate.id === id) },
      deliver: async (_orgId, target, batch) => {
        await deliver(target, batch);
        return { rows: [], latencyMs: 0 };
      },
      recordFiltered: async () => undefined,
    });
  }

  test('issue 23 §2: an event the worker cannot read is logged not sent, with the reason, by each conversion that takes it, before the ack', async () => {
    const logged: Array<{ conversion: string; rows: Array<{ id: string; status: string; reason?: string }> }> = [];
    const filtered: Array<{ conversion: string; ids: string[]; wanted: string[] }> = [];
    const delivered: string[] = [];
    const known = [conversion('every'), conversion('leads', ['lead']), conversion('purchases', ['Purchase'])];
    const router = createConversionRouter({
      lingerMs: 20,
      lookup: {
        bySource: async () => known,
        byId: async (_org, id) => known.filter((candidate) => candidate.id === id),
      },
      deliver: async (_orgId, _target, batch) => {
        delivered.push(...batch.map((item) => item.id));
        return { rows: [], latencyMs: 0 };
      },
      recordUnreadable: async (_orgId, records) =>
        void logged.push(...records.map(({ conversionId, record }) => ({ conversion: conversionId, rows: record.rows }))),
      recordFiltered: async (_orgId, conversionId, left, wanted) =>
        void filtered.push({ conversion: conversionId, ids: left.map((item) => item.id), wanted }),
    });
    // As a version before the one schema published them: a time before 1970, an fbc past its length.
    const data = Buffer.from(
      JSON.stringify([
        event('ok-1'),
        { ...event('old-1'), time: -315_619_200 },
        { ...event('long-1'), clickIds: { fbc: 'x'.repeat(900) } },
        // No name to tell which conversions wanted it: every one logs it.
        { id: 'nameless-1' },
      ]),
    );
    const settled: string[] = [];
    router.handle({
      id: 'm',
      data,
      attributes: { ...attributes, events: '4' },
      ack: () => settled.push('ack'),
      nack: () => settled.push('nack'),
    });
    while (settled.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).toEqual(['ack']);
    expect(delivered.sort()).toEqual(['ok-1', 'ok-1']);
    expect(logged.map((entry) => entry.conversion).sort()).toEqual(['every', 'leads', 'purchases']);
    const rowsOf = (conversion: string) => logged.find((entry) => entry.conversion === conversion)!.rows;
    expect(rowsOf('every')).toEqual([
      { id: 'old-1', status: 'not_sent', reason: expect.stringMatching(/^Not sent: the event cannot be delivered as queued \(time: /) },
      { id: 'long-1', status: 'not_sent', reason: expect.stringMatching(/\(clickIds\.fbc: /) },
      { id: 'nameless-1', status: 'not_sent', reason: expect.stringMatching(/^Not sent: /) },
    ]);
    expect(rowsOf('purchases').map((row) => row.id)).toEqual(['nameless-1']);
    // The readable Lead the Purchase conversion's name filter left out is noted for it (one write), before the ack.
    expect(filtered).toEqual([{ conversion: 'purchases', ids: ['ok-1'], wanted: ['Purchase'] }]);
  });

  test('filtered-out notes: one write a second per conversion, under an id the same messages give again; each message acked after it', async () => {
    const notes: Array<{ ids: string[]; id?: string; at: number }> = [];
    const acksAtWrite: number[] = [];
    const list = Array.from({ length: 20 }, (_, index) => messageOf([event(`f${index}`, 'Lead')], `m${index}`));
    const router = createConversionRouter({
      lingerMs: 20,
      lookup: { bySource: async () => [conversion('buys', ['Purchase'])], byId: async () => [] },
      deliver: async () => ({ rows: [], latencyMs: 0 }),
      recordFiltered: async (_orgId, _conversionId, left, _wanted, id) => {
        acksAtWrite.push(list.filter(({ settled }) => settled.length > 0).length);
        notes.push({ ids: left.map((item) => item.id), id, at: Date.now() });
      },
    });
    for (const { message } of list.slice(0, 10)) router.handle(message);
    await settledAll(list.slice(0, 10));
    for (const { message } of list.slice(10)) router.handle(message);
    await settledAll(list);
    expect(list.map(({ settled }) => settled)).toEqual(Array(20).fill(['ack']));
    // Two writes: the first ten at once, the next ten a second later; no message acked before its note was written.
    expect(notes.map((note) => note.ids.length)).toEqual([10, 10]);
    expect(notes[1]!.at - notes[0]!.at).toBeGreaterThanOrEqual(990);
    expect(acksAtWrite).toEqual([0, 10]);
    // The same messages delivered again are noted under the same id (the write replaces itself).
    const again = list.slice(0, 10).map(({ message }) => ({ ...message, ack: () => undefined }));
    const before = notes.length;
    again.forEach((message) => router.handle(message));
    while (notes.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(notes[before]!.id).toBe(notes[0]!.id);
    expect(notes[0]!.id).not.toBe(notes[1]!.id);
    await router.drain();
  });

  test('fifteen messages of 100 make Meta batches of 1,000 and 500; each message is acknowledged once its events are recorded', async () => {
    const batches: number[] = [];
    const router = routerWith([conversion('c1')], async (_conversion, batch) => void batches.push(batch.length));
    const messages = Array.from({ length: 15 }, (_, index) => messageOf(events(100, `m${index}`), `m${index}`));
    for (const { message } of messages) router.handle(message);
    await settledAll(messages);
    expect(batches).toEqual([1000, 500]);
    expect(messages.map(({ settled }) => settled)).toEqual(Array(15).fill(['ack']));
  });

  // Batches of 1,000: m0's 40, m1–m9's 900 and m10's first 60, then m10's last 40 (whose outcome is not recorded).
  const elevenMessages = () => [
    messageOf(events(40, 'm0'), 'm0'),
    ...Array.from({ length: 10 }, (_, index) => messageOf(events(100, `m${index + 1}`), `m${index + 1}`)),
  ];
  const secondBatchFails = () => {
    let calls = 0;
    return async () => {
      calls += 1;
      if (calls === 2) throw new Error('Firestore is unavailable');
    };
  };

  test('a batch whose outcome is not recorded is set aside for its conversion alone, and its messages are acknowledged', async () => {
    const router = routerWith([conversion('c1')], secondBatchFails());
    const list = elevenMessages();
    for (const { message } of list) router.handle(message);
    await settledAll(list);
    expect(setAside).toEqual([
      { ids: Array.from({ length: 40 }, (_, index) => `m10-${60 + index}`), attributes: { ...attributes, conversion: 'c1' } },
    ]);
    expect(list.map(({ settled }) => settled)).toEqual(Array(11).fill(['ack']));
  });

  test('when the batch cannot be set aside either, a message holding its events comes again', async () => {
    setAsideFails = true;
    const router = routerWith([conversion('c1')], secondBatchFails());
    const list = elevenMessages();
    for (const { message } of list) router.handle(message);
    await settledAll(list);
    expect(list.map(({ settled }) => settled)).toEqual([...Array(10).fill(['ack']), ['nack']]);
  });

  test('a message meant for one conversion whose batch is not recorded comes again, for Pub/Sub to back off and dead-letter', async () => {
    const router = routerWith([conversion('c1')], async () => {
      throw new Error('Firestore is unavailable');
    });
    const replay = messageOf(events(10, 'again'), 'again', { conversion: 'c1' });
    router.handle(replay.message);
    await settledAll([replay]);
    expect(replay.settled).toEqual(['nack']);
    expect(setAside).toEqual([]);
  });

  test('one message feeding two conversions is acknowledged after both have recorded the events each takes', async () => {
    const taken = new Map<string, string[]>();
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const router = routerWith([conversion('leads', ['Lead']), conversion('buys', ['Purchase'])], async (target, batch) => {
      taken.set(
        target.id,
        batch.map((item) => item.id),
      );
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

describe('how much a worker pulls', () => {
  const limits = { batch: 1000, maxOutstanding: 5000, maxWeight: EVENTS_PER_MESSAGE };

  /**
   * Pulls with messages of the given weight in turn until the worker waits: the most ever in hand. Messages of
   * one event are settled before the next Pull (the platform answers quickly); heavier ones are still in hand.
   */
  function peakInHand(weights: number[]): number {
    let held = 0;
    let meanWeight = limits.maxWeight;
    let peak = 0;
    for (const weight of weights) {
      const wanted = messagesToPull({ ...limits, meanWeight, held, reserved: 0 });
      if (wanted === 0) break;
      held += wanted * weight;
      meanWeight = (meanWeight + weight) / 2;
      peak = Math.max(peak, held);
      if (weight === 1) held = 0;
    }
    return peak;
  }

  test('light messages come as many at a Pull as twice the limit holds full ones; a worker of one-event messages takes a thousand', () => {
    expect(messagesToPull({ ...limits, meanWeight: 1, held: 0, reserved: 0 })).toBe(20);
    expect(messagesToPull({ ...limits, meanWeight: 1, held: 0, reserved: 0, maxWeight: 1 })).toBe(1000);
  });

  test('a run of full messages after light ones holds at most twice the limit', () => {
    // Twenty light Pulls bring the mean weight down to about 1; then every message is full. Sized by the mean
    // alone, the first full Pull would bring 1,000 messages: 500,000 events.
    const peak = peakInHand([...Array(20).fill(1), ...Array(20).fill(EVENTS_PER_MESSAGE)]);
    expect(peak).toBeGreaterThan(limits.maxOutstanding);
    expect(peak).toBeLessThanOrEqual(2 * limits.maxOutstanding);
  });

  test('a worker starting on a backlog of full messages takes what the limit holds, then waits', () => {
    expect(messagesToPull({ ...limits, meanWeight: EVENTS_PER_MESSAGE, held: 0, reserved: 0 })).toBe(10);
    expect(messagesToPull({ ...limits, meanWeight: EVENTS_PER_MESSAGE, held: 5000, reserved: 0 })).toBe(0);
    // Two loops: what one has asked for counts against the other.
    expect(messagesToPull({ ...limits, meanWeight: EVENTS_PER_MESSAGE, held: 0, reserved: 10 })).toBe(0);
  });
});
