/** @jest-environment node */
import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { PlatformError } from '@/lib/server/connectors/errors';
import { RetryLater } from '@/lib/server/delivery/deliver';
import { createFairQuota } from '@/lib/server/delivery/quota';
import { createConversionRouter } from '@/lib/server/delivery/router';
import type { QueueMessage } from '@/lib/server/queue/message';
import { packEvents } from '@/lib/server/queue/pubsub';

const event = (id: string): ConversionEvent => ({
  id,
  name: 'Lead',
  time: 1_800_000_000,
  value: 10,
  currency: 'USD',
  user: { email: 'a'.repeat(64) },
  clickIds: {},
  context: { actionSource: 'website' },
});

describe('a quota every organization shares', () => {
  test('served in turns: an organization with 50 requests waiting does not go before another one’s first', async () => {
    const quota = createFairQuota(6000, 1); // one token every 10 ms
    const order: string[] = [];
    const flood = Array.from({ length: 50 }, () => quota.take('a').then(() => order.push('a')));
    await new Promise((resolve) => setTimeout(resolve, 25));
    const other = [quota.take('b').then(() => order.push('b')), quota.take('b').then(() => order.push('b'))];
    await Promise.all([...flood, ...other]);
    quota.stop();
    // B's two requests are served among A's next ones, not after the 50.
    const lastB = order.lastIndexOf('b');
    expect(lastB).toBeLessThan(10);
    expect(order.filter((who) => who === 'a')).toHaveLength(50);
  });
});

describe('lanes', () => {
  const conversion = (id: string, destinationId: string, platform = 'meta_ads'): Conversion =>
    ({
      id,
      status: 'active',
      destination: { platform, destinationId },
      mapping: { events: [], value: { mode: 'event' }, identifiers: ['email'] },
    }) as unknown as Conversion;

  function message(ids: string[], source: string): { message: QueueMessage; settled: string[] } {
    const [packed] = packEvents(ids.map(event));
    const settled: string[] = [];
    return {
      settled,
      message: {
        id: ids[0]!,
        data: packed!.data,
        attributes: { org: 'org1', source, events: String(packed!.count) },
        ack: () => settled.push('ack'),
        nack: () => settled.push('nack'),
      },
    };
  }

  test('a destination that hangs holds its own lane only; a retry waits off the lane', async () => {
    const slow = conversion('slow', 'd-meta');
    const healthy = conversion('healthy', 'd-google', 'google_ads');
    const delivered: string[] = [];
    const attempts = new Map<string, number>();
    let releaseHang: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => (releaseHang = resolve));
    const router = createConversionRouter({
      lingerMs: 5,
      sharedQuotas: {},
      lookup: {
        bySource: async (_org, source) => (source === 'app:slow' ? [slow] : [healthy]),
        byId: async (_org, id) => [slow, healthy].filter((candidate) => candidate.id === id),
      },
      deliver: async (_org, target, batch, options) => {
        if (target.id === 'slow') {
          const attempt = options?.attempt ?? 0;
          attempts.set(batch[0]!.id, attempt);
          // The first attempt of each batch hangs until released, then fails transiently: retried after 20 ms.
          if (attempt === 0) {
            await hanging;
            throw new RetryLater(20, new PlatformError('meta_ads', 'retryable', 'timed out'));
          }
        }
        delivered.push(...batch.map((item) => item.id));
        return { rows: [], latencyMs: 0 };
      },
    });
    // Twelve batches for the hung destination (more than the old eight shared slots), then one for the healthy one.
    const slowMessages = Array.from({ length: 12 }, (_, index) => message([`s${index}`], 'app:slow'));
    for (const { message: queued } of slowMessages) router.handle(queued);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const fast = message(['g1'], 'app:healthy');
    router.handle(fast.message);
    while (fast.settled.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(fast.settled).toEqual(['ack']);
    expect(delivered).toEqual(['g1']);
    // The hung lane sends two at a time; once the platform answers, every batch is retried and delivered once.
    releaseHang();
    while (slowMessages.some(({ settled }) => settled.length === 0)) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(slowMessages.map(({ settled }) => settled)).toEqual(slowMessages.map(() => ['ack']));
    expect(delivered.filter((id) => id.startsWith('s')).sort()).toEqual(slowMessages.map((_, index) => `s${index}`).sort());
    expect([...attempts.values()].every((attempt) => attempt === 1)).toBe(true);
    await router.drain();
  });
});
