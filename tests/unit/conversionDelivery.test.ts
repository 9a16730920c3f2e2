/** @jest-environment node */
import type { ConversionMapping } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent, RowOutcome } from '@/lib/shared/conversions/event';
import { PlatformError } from '@/lib/server/connectors/errors';
import { backoffMs, sendIsolating } from '@/lib/server/delivery/deliver';
import { mapEvent, takesEvent } from '@/lib/server/delivery/mapping';

const event = (id: string, overrides: Partial<ConversionEvent> = {}): ConversionEvent => ({
  id,
  name: 'Lead',
  time: 1_800_000_000,
  value: 12.5,
  currency: 'EUR',
  user: { email: 'a'.repeat(64), phone: 'b'.repeat(64), firstName: 'c'.repeat(64) },
  clickIds: { gclid: 'g1', fbp: 'fb.1.1.1' },
  context: { ip: '203.0.113.1', userAgent: 'UA', pageUrl: 'https://x.example/', actionSource: 'website' },
  ...overrides,
});
const noWait = { attempts: 4, baseMs: 0, maxMs: 0 };

describe('splitting a refused request to isolate its bad rows', () => {
  test('a request refused as a whole is halved until the bad rows stand alone; the rest are delivered', async () => {
    const bad = new Set(['e3', 'e6']);
    const calls: number[] = [];
    const send = async (events: ConversionEvent[]): Promise<RowOutcome[]> => {
      calls.push(events.length);
      if (events.some((candidate) => bad.has(candidate.id))) throw new PlatformError('meta_ads', 'invalid', 'event_time is too old');
      return events.map((candidate) => ({ id: candidate.id, status: 'delivered' }));
    };
    const events = Array.from({ length: 8 }, (_, index) => event(`e${index}`));
    const outcomes = await sendIsolating(send, events, noWait);
    expect(
      outcomes
        .filter((outcome) => outcome.status === 'delivered')
        .map((outcome) => outcome.id)
        .sort(),
    ).toEqual(['e0', 'e1', 'e2', 'e4', 'e5', 'e7']);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([
      { id: 'e3', status: 'rejected', reason: 'event_time is too old' },
      { id: 'e6', status: 'rejected', reason: 'event_time is too old' },
    ]);
    expect(calls[0]).toBe(8);
    expect(calls.length).toBeLessThan(16);
  });

  test('transient failures are retried, then the last one is thrown', async () => {
    let attempts = 0;
    const flaky = async (events: ConversionEvent[]): Promise<RowOutcome[]> => {
      attempts += 1;
      if (attempts < 3) throw new PlatformError('google_ads', 'rate_limited', 'Quota');
      return events.map((candidate) => ({ id: candidate.id, status: 'delivered' }));
    };
    await expect(sendIsolating(flaky, [event('a')], noWait)).resolves.toEqual([{ id: 'a', status: 'delivered' }]);
    expect(attempts).toBe(3);

    let failures = 0;
    const down = async (): Promise<RowOutcome[]> => {
      failures += 1;
      throw new PlatformError('google_ads', 'retryable', 'Unavailable');
    };
    await expect(sendIsolating(down, [event('a')], noWait)).rejects.toMatchObject({ code: 'retryable' });
    expect(failures).toBe(4);
  });

  test('a dead login is not retried', async () => {
    let calls = 0;
    const dead = async (): Promise<RowOutcome[]> => {
      calls += 1;
      throw new PlatformError('meta_ads', 'needs_reauth', 'Token expired');
    };
    await expect(sendIsolating(dead, [event('a'), event('b')], noWait)).rejects.toMatchObject({ code: 'needs_reauth' });
    expect(calls).toBe(1);
  });
});

test('backoff: full jitter under an exponential cap', () => {
  const policy = { attempts: 5, baseMs: 100, maxMs: 1000 };
  expect(backoffMs(0, policy, () => 0.999)).toBe(99);
  expect(backoffMs(3, policy, () => 0.5)).toBe(400);
  expect(backoffMs(10, policy, () => 0.999)).toBe(999);
  expect(backoffMs(2, policy, () => 0)).toBe(0);
});

describe('mapping', () => {
  const mapping = (overrides: Partial<ConversionMapping> = {}): ConversionMapping => ({
    events: [],
    value: { mode: 'event' },
    identifiers: ['email'],
    ...overrides,
  });

  test('event names are matched without case; none means every event', () => {
    expect(takesEvent(mapping(), event('a'))).toBe(true);
    expect(takesEvent(mapping({ events: ['lead'] }), event('a'))).toBe(true);
    expect(takesEvent(mapping({ events: ['Purchase'] }), event('a'))).toBe(false);
  });

  test('only the chosen identifiers are sent, and a fixed value replaces the event’s', () => {
    const mapped = mapEvent(mapping({ value: { mode: 'fixed', amount: 30, currency: 'USD' } }), event('a'));
    expect(mapped.user).toEqual({ email: 'a'.repeat(64) });
    expect(mapped.clickIds).toEqual({});
    expect(mapped.context).toEqual({ actionSource: 'website', pageUrl: 'https://x.example/' });
    expect([mapped.value, mapped.currency]).toEqual([30, 'USD']);
    const all = mapEvent(mapping({ identifiers: ['email', 'phone', 'name', 'clickIds', 'context'] }), event('a'));
    expect(all.user).toEqual(event('a').user);
    expect(all.clickIds).toEqual(event('a').clickIds);
    expect(all.context.ip).toBe('203.0.113.1');
  });
});
