import { createHash } from 'node:crypto';
import { metaAds } from '@/lib/server/connectors/meta_ads';
import type { Delivery, Session } from '@/lib/server/connectors/types';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { refusal } from '@/tests/api/helpers/delivery';
import { spyOnLog, type LogSpy } from '@/tests/fixtures/logSpy';

// Conversions to a Meta pixel, through the connector and the sandbox's Conversions API: batches of
// up to 1,000, Meta's dedup, the whole request refused for one bad event, and every failure classified.
const APP_URL = 'http://localhost:3999';
const REDIRECT_URI = `${APP_URL}/addConversionDestination`;
const ACCOUNT = { id: '101', name: 'Acme Shoes (Meta)' };
const PIXEL = { id: '555000111', name: 'Acme Shoes Pixel' };
const DAY = 24 * 3600;

let platforms: FakePlatforms;
let session: Session;
let logged: LogSpy;
const deliver = metaAds.deliver as Delivery;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const nowSeconds = () => Math.floor(Date.now() / 1000);

function conversion(n: number, overrides: Partial<ConversionEvent> = {}): ConversionEvent {
  return {
    id: `order-${n}`,
    name: 'Purchase',
    time: nowSeconds() - 3600,
    value: 25 + n,
    currency: 'USD',
    user: { email: sha256(`buyer${n}@example.com`), phone: sha256(`1555000${n}`) },
    clickIds: { fbc: `fb.1.1700000000000.click${n}`, fbp: `fb.1.1700000000000.${n}` },
    context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (sandbox)', pageUrl: 'https://shop.example.com/thanks', actionSource: 'website' },
    ...overrides,
  };
}
const batch = (count: number, from = 0) => Array.from({ length: count }, (_, i) => conversion(from + i));

const received = (target = PIXEL.id) => platforms.conversions.list('meta').filter((entry) => entry.target === target);

/** A raw Conversions API call, as any client would make it (token in the query string). */
async function postEvents(data: unknown, pixelId = PIXEL.id) {
  const response = await fetch(
    `${platforms.url}/meta/graph/v27.0/${pixelId}/events?access_token=${encodeURIComponent(session.accessToken)}`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ data }),
    },
  );
  return { status: response.status, body: (await response.json()) as { error?: Record<string, unknown>; events_received?: number } };
}

beforeAll(async () => {
  // Refusals are logged for operators; here they are expected, and checked for secrets at the end.
  logged = spyOnLog();
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  const oauth = metaAds.auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('state-meta-delivery', REDIRECT_URI));
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI);
  session = await metaAds.openSession(connection.credential);
});
afterAll(async () => {
  logged.mockRestore();
  await platforms.close();
});
afterEach(() => {
  platforms.conversions.failures.delete('meta');
});

describe('sending to a pixel', () => {
  test('1,000 events go in one call, each delivered and received as Meta got it', async () => {
    const events = batch(1000);
    const outcomes = await deliver.send(session, ACCOUNT, PIXEL, events);
    expect(outcomes).toHaveLength(1000);
    expect(outcomes.every((outcome) => outcome.status === 'delivered')).toBe(true);
    expect(outcomes.map((outcome) => outcome.id)).toEqual(events.map((event) => event.id));
    expect(received()).toHaveLength(1000);
    expect(platforms.conversions.calls('meta')).toBe(1);

    const first = received().find((entry) => entry.key === `${PIXEL.id}|Purchase|order-0`);
    expect(first?.event).toEqual({
      event_name: 'Purchase',
      event_time: events[0]!.time,
      event_id: 'order-0',
      action_source: 'website',
      event_source_url: 'https://shop.example.com/thanks',
      user_data: {
        em: [sha256('buyer0@example.com')],
        ph: [sha256('15550000')],
        fbc: 'fb.1.1700000000000.click0',
        fbp: 'fb.1.1700000000000.0',
        client_ip_address: '203.0.113.7',
        client_user_agent: 'Mozilla/5.0 (sandbox)',
      },
      custom_data: { value: 25, currency: 'USD' },
    });
  });

  test('the same events sent again are deduplicated by Meta: still 1,000, each received twice', async () => {
    const outcomes = await deliver.send(session, ACCOUNT, PIXEL, batch(1000));
    expect(outcomes.every((outcome) => outcome.status === 'delivered')).toBe(true);
    expect(received()).toHaveLength(1000);
    expect(received().every((entry) => entry.receipts === 2)).toBe(true);
    expect(platforms.conversions.calls('meta')).toBe(2);
  });

  test('a test_event_code request is validated and kept apart from the pixel’s real events', async () => {
    await deliver.send(session, ACCOUNT, PIXEL, [conversion(5000)], { testCode: 'TEST12345' });
    expect(received(`test:${PIXEL.id}`).map((entry) => [entry.event.event_id, entry.event.test_event_code])).toEqual([
      ['order-5000', 'TEST12345'],
    ]);
    expect(received()).toHaveLength(1000);
  });
});

describe('Meta refuses the whole request for one bad event', () => {
  test('1,001 events are refused: invalid', async () => {
    const error = await refusal(deliver.send(session, ACCOUNT, PIXEL, batch(1001, 10_000)));
    expect(error.code).toBe('invalid');
    expect(error.message).toContain('at most 1000 events');
    expect(received().some((entry) => entry.key.includes('order-10000'))).toBe(false);
  });

  test('one event older than 7 days sinks the batch with Meta’s message, and nothing of it is recorded', async () => {
    const events = [...batch(3, 20_000), conversion(20_003, { time: nowSeconds() - 8 * DAY })];
    const error = await refusal(deliver.send(session, ACCOUNT, PIXEL, events));
    expect(error.code).toBe('invalid');
    expect(error.message).toMatch(/Event Timestamp Too Old: The timestamp for this event is too far in the past/);
    expect(received().some((entry) => entry.key.includes('order-2000'))).toBe(false);
  });

  test('an unhashed email is refused: invalid', async () => {
    const event = conversion(30_000, { user: { email: 'jane@example.com' } });
    const error = await refusal(deliver.send(session, ACCOUNT, PIXEL, [event]));
    expect(error.code).toBe('invalid');
    expect(error.message).toContain("['user_data']['em'][0] must be a SHA-256 hash");
  });

  test('a website event without the user agent is refused', async () => {
    const event = conversion(30_001, { context: { ip: '203.0.113.7', actionSource: 'website' } });
    const error = await refusal(deliver.send(session, ACCOUNT, PIXEL, [event]));
    expect(error.code).toBe('invalid');
    expect(error.message).toContain('client_user_agent');
  });

  test('a pixel the login cannot reach is forbidden (splitting the batch would not help)', async () => {
    const error = await refusal(deliver.send(session, ACCOUNT, { id: '999000999', name: 'Someone else’s pixel' }, [conversion(30_002)]));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain("Object with ID '999000999' does not exist");
  });
});

describe('check holds back what Meta would refuse', () => {
  const now = new Date();

  test('a good event passes, a stale one and one in the future do not', () => {
    expect(deliver.check(conversion(1), now)).toBeNull();
    expect(deliver.check(conversion(2, { time: nowSeconds() - 6 * DAY }), now)).toBeNull();
    expect(deliver.check(conversion(3, { time: nowSeconds() - 8 * DAY }), now)).toBe(
      'Older than 7 days: Meta accepts events from the last 7 days',
    );
    expect(deliver.check(conversion(4, { time: nowSeconds() + 3600 }), now)).toMatch(/^In the future/);
  });

  test('an event with no identifier Meta can match, or a website event without user agent, is held back', () => {
    const anonymous = conversion(5, { user: {}, clickIds: {}, context: { actionSource: 'system_generated' } });
    expect(deliver.check(anonymous, now)).toBe('No identifier Meta can match (email, phone, external id, fbc/fbp, or IP with user agent)');
    const namesOnly = conversion(6, {
      user: { firstName: sha256('jane'), lastName: sha256('doe') },
      clickIds: {},
      context: { actionSource: 'system_generated' },
    });
    expect(deliver.check(namesOnly, now)).toMatch(/^No identifier/);
    const ipAndAgent = conversion(7, {
      user: {},
      clickIds: {},
      context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0', actionSource: 'website' },
    });
    expect(deliver.check(ipAndAgent, now)).toBeNull();
    expect(deliver.check(conversion(8, { context: { actionSource: 'website' } }), now)).toMatch(/user agent/);
    // A payment (system_generated) needs no browser at all.
    expect(deliver.check(conversion(9, { clickIds: {}, context: { actionSource: 'system_generated' } }), now)).toBeNull();
  });

  test('what check lets through, the sandbox accepts; what it holds back, the sandbox refuses', async () => {
    const held = [
      conversion(40_000, { time: nowSeconds() - 8 * DAY }),
      conversion(40_001, { user: {}, clickIds: {}, context: { actionSource: 'system_generated' } }),
      conversion(40_002, { context: { actionSource: 'website' } }),
    ];
    for (const event of held) {
      expect(deliver.check(event, new Date())).not.toBeNull();
      expect((await refusal(deliver.send(session, ACCOUNT, PIXEL, [event]))).code).toBe('invalid');
    }
    const passed = conversion(40_003, {
      user: {},
      clickIds: {},
      context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0', actionSource: 'website' },
    });
    expect(deliver.check(passed, new Date())).toBeNull();
    expect(await deliver.send(session, ACCOUNT, PIXEL, [passed])).toEqual([
      {
        id: 'order-40003',
        status: 'delivered',
        // The row as it left (Meta's wire form) and Meta's answer to the whole request (kept once per record).
        exchange: {
          sent: expect.objectContaining({
            event_id: 'order-40003',
            user_data: { client_ip_address: '203.0.113.7', client_user_agent: 'Mozilla/5.0' },
          }),
          requestAnswer: { events_received: 1, messages: [], fbtrace_id: expect.any(String) },
        },
      },
    ]);
  });
});

describe('the sandbox speaks Graph', () => {
  const wireEvent = (overrides: Record<string, unknown> = {}) => ({
    event_name: 'Lead',
    event_time: nowSeconds(),
    event_id: 'raw-1',
    action_source: 'system_generated',
    user_data: { em: [sha256('raw@example.com')] },
    ...overrides,
  });

  test('an event without action_source is refused in Graph’s error shape', async () => {
    const event: Record<string, unknown> = wireEvent();
    delete event.action_source;
    const { status, body } = await postEvents([event]);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      type: 'OAuthException',
      code: 100,
      error_subcode: 2804019,
      error_user_msg: "The parameter $['data'][0]['action_source'] is required.",
      fbtrace_id: expect.any(String),
    });
  });

  test('an event older than 7 days is refused with subcode 2804003', async () => {
    const { status, body } = await postEvents([wireEvent(), wireEvent({ event_id: 'raw-2', event_time: nowSeconds() - 8 * DAY })]);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      type: 'OAuthException',
      code: 100,
      error_subcode: 2804003,
      error_user_title: 'Event Timestamp Too Old',
    });
    expect(String(body.error?.error_user_msg)).toContain('too far in the past');
    expect(received().some((entry) => entry.key.includes('raw-'))).toBe(false);
  });

  test('an unknown action_source, a missing or empty data, and a non-numeric value are refused', async () => {
    expect((await postEvents([wireEvent({ action_source: 'web' })])).body.error).toMatchObject({ code: 100, error_subcode: 2804019 });
    expect((await postEvents(undefined)).body.error).toMatchObject({ code: 100, message: '(#100) The parameter data is required' });
    expect((await postEvents([])).status).toBe(400);
    expect((await postEvents([wireEvent({ custom_data: { value: '12.50', currency: 'USD' } })])).body.error).toMatchObject({ code: 100 });
  });

  test('a form post with data as a JSON string is accepted, and counts every event it received', async () => {
    const form = new URLSearchParams({
      access_token: session.accessToken,
      data: JSON.stringify([wireEvent({ event_id: 'form-1' }), wireEvent({ event_id: 'form-1' })]),
    });
    const response = await fetch(`${platforms.url}/meta/graph/v27.0/${PIXEL.id}/events`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ events_received: 2, messages: [], fbtrace_id: expect.any(String) });
    expect(
      received()
        .filter((entry) => entry.key === `${PIXEL.id}|Lead|form-1`)
        .map((entry) => entry.receipts),
    ).toEqual([2]);
  });
});

describe('failures of the whole request', () => {
  test('Meta failing with 500 is retryable', async () => {
    platforms.conversions.fail('meta', { status: 500, seconds: 5 });
    const error = await refusal(deliver.send(session, ACCOUNT, PIXEL, [conversion(50_000)]));
    expect(error.code).toBe('retryable');
  });

  test('Meta throttling (code 80003) is rate_limited', async () => {
    platforms.conversions.fail('meta', { status: 429, seconds: 5 });
    const error = await refusal(deliver.send(session, ACCOUNT, PIXEL, [conversion(50_001)]));
    expect(error.code).toBe('rate_limited');
    expect(received().map((entry) => entry.key)).not.toEqual(
      expect.arrayContaining([`${PIXEL.id}|Purchase|order-50000`, `${PIXEL.id}|Purchase|order-50001`]),
    );
    expect(platforms.conversions.list('meta').some((entry) => /\|order-5000[01]$/.test(entry.key))).toBe(false);
  });

  test('what was logged about refusals never carries the access token', () => {
    expect(logged.entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(logged.entries)).not.toContain(session.accessToken);
  });

  // Last: it kills every Meta login of the sandbox.
  test('a revoked login needs reauth', async () => {
    platforms.revokeAll('meta');
    const error = await refusal(deliver.send(session, ACCOUNT, PIXEL, [conversion(50_002)]));
    expect(error.code).toBe('needs_reauth');
  });
});
