import { exportEvents, type ExportedEvent, type ExportInput } from '@/lib/server/connectors/mixpanel/export';
import type { Session } from '@/lib/server/connectors/types';
import { seedDemoMixpanelEvents } from '@/sandbox/mixpanel';
import { MIXPANEL_EXPORT_LIMIT } from '@/sandbox/mixpanel/projects';
import { type FakePlatforms, SANDBOX_MIXPANEL } from '@/sandbox/platforms';
import { refusal } from '@/tests/api/helpers/delivery';
import { closeMixpanelSandbox, connectMixpanel, openMixpanelSandbox } from '@/tests/api/helpers/mixpanel';
import type { LogSpy } from '@/tests/fixtures/logSpy';

// A project's raw events read back through Mixpanel's Export API, through the connector and the
// sandbox: whole UTC days, event-name filters, batches read off the stream, each project on its
// residency's host, and every refusal classified (bad login, the hourly limit, a bad query, an outage).
const US = SANDBOX_MIXPANEL.projects.US;
const EU = SANDBOX_MIXPANEL.projects.EU;

let platforms: FakePlatforms;
let us: Session;
let eu: Session;
let logged: LogSpy;
let eventsAtStart: number;

const basic = (username: string, secret: string) => Buffer.from(`${username}:${secret}`).toString('base64');
/** The UTC day `days` before today, as YYYY-MM-DD. */
const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 3600 * 1000).toISOString().slice(0, 10);
const at = (iso: string) => Date.parse(iso) / 1000;

/** Every batch of an export, in order. */
async function batchesOf(session: Session, input: ExportInput): Promise<ExportedEvent[][]> {
  const batches: ExportedEvent[][] = [];
  for await (const batch of exportEvents(session, input)) batches.push(batch);
  return batches;
}
const exported = async (session: Session, input: ExportInput) => (await batchesOf(session, input)).flat();

/** An event as the tests seed it: `time` in seconds unless `ms`, a fresh $insert_id. */
let serial = 0;
function seeded(event: string, time: number, properties: Record<string, unknown> = {}) {
  serial += 1;
  return { event, properties: { time, distinct_id: `user-${serial}`, $insert_id: `seed-${serial}`, ...properties } };
}

/** Five days of March 2025: a Signup and a Purchase at each day's first and last second, seeded out of order. */
const MARCH = ['2025-03-01', '2025-03-02', '2025-03-03', '2025-03-04', '2025-03-05'];
const marchEvents = () =>
  MARCH.flatMap((day) => [
    seeded('Purchase', at(`${day}T23:59:59Z`), { amount: 10 }),
    seeded('Signup', at(`${day}T00:00:00Z`)),
    seeded('Signup', at(`${day}T12:00:00Z`) * 1000), // imported in ms: exported in seconds all the same
  ]);

beforeAll(async () => {
  ({ platforms, logged } = await openMixpanelSandbox());
  eventsAtStart = platforms.mixpanel.events(US.id).length;
  ({ session: us } = await connectMixpanel(US.id, 'US'));
  ({ session: eu } = await connectMixpanel(EU.id, 'EU'));
});
afterAll(() => closeMixpanelSandbox({ platforms, logged }));
beforeEach(() => {
  // Each test starts from empty projects and a fresh hourly export limit.
  platforms.mixpanel.reset();
});
afterEach(() => {
  platforms.conversions.failures.delete('mixpanel');
});

describe('the demo data', () => {
  test('the US project starts with 60 trials and renewals of the last 14 days, with click ids on some', async () => {
    expect(eventsAtStart).toBe(60);
    seedDemoMixpanelEvents(platforms.mixpanel);
    const events = await exported(us, { fromDate: daysAgo(14), toDate: daysAgo(0), events: [] });
    expect(events).toHaveLength(60);
    expect(new Set(events.map((event) => event.event))).toEqual(new Set(['Trial Started', 'Subscription Renewed']));
    for (const { properties } of events) {
      expect(properties).toEqual(
        expect.objectContaining({
          distinct_id: expect.stringMatching(/^user_\d+$/),
          $insert_id: expect.any(String),
          $email: expect.stringMatching(/^user\d+@example\.com$/),
          plan: expect.any(String),
          amount: expect.any(Number),
          currency: 'USD',
        }),
      );
      expect(properties.$email).toBe(`user${String(properties.distinct_id).slice(5)}@example.com`);
    }
    expect(events.filter((event) => 'gclid' in event.properties).length).toBeGreaterThan(0);
    expect(events.filter((event) => 'fbclid' in event.properties).length).toBeGreaterThan(0);
    const times = events.map((event) => event.properties.time as number);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Deterministic: the same moment seeds the same events (a second seed only adds copies).
    platforms.mixpanel.reset();
    seedDemoMixpanelEvents(platforms.mixpanel, 1_750_000_000_000);
    const first = platforms.mixpanel.events(US.id).map((stored) => stored.properties);
    platforms.mixpanel.reset();
    seedDemoMixpanelEvents(platforms.mixpanel, 1_750_000_000_000);
    expect(platforms.mixpanel.events(US.id).map((stored) => stored.properties)).toEqual(first);
  });
});

describe('exporting events', () => {
  test('only the events of [from, to] in whole UTC days, sorted by time, time in seconds', async () => {
    platforms.mixpanel.seed(US.id, marchEvents());
    const events = await exported(us, { fromDate: '2025-03-02', toDate: '2025-03-04', events: [] });
    expect(events).toHaveLength(9);
    expect(events.map((event) => [event.event, event.properties.time])).toEqual(
      MARCH.slice(1, 4).flatMap((day) => [
        ['Signup', at(`${day}T00:00:00Z`)],
        ['Signup', at(`${day}T12:00:00Z`)],
        ['Purchase', at(`${day}T23:59:59Z`)],
      ]),
    );
    expect(events.every((event) => Number.isInteger(event.properties.time))).toBe(true);
    expect(events[2]!.properties).toEqual(
      expect.objectContaining({ distinct_id: expect.any(String), $insert_id: expect.any(String), amount: 10 }),
    );
    // One day alone, and a day with nothing.
    expect(await exported(us, { fromDate: '2025-03-05', toDate: '2025-03-05', events: [] })).toHaveLength(3);
    expect(await exported(us, { fromDate: '2025-02-01', toDate: '2025-02-28', events: [] })).toEqual([]);
    expect(platforms.mixpanel.exportCalls(US.id)).toBe(3);
    // Seeding is no import call.
    expect(platforms.mixpanel.importCalls(US.id)).toBe(0);
  });

  test('events imported through /import are exported too', async () => {
    const time = Math.floor(Date.now() / 1000) - 60;
    const response = await fetch(`${platforms.url}/mixpanel/us/import?strict=1&project_id=${US.id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Basic ${basic(SANDBOX_MIXPANEL.username, SANDBOX_MIXPANEL.secret)}` },
      body: JSON.stringify([{ event: 'Imported', properties: { time: time * 1000, distinct_id: 'u-1', $insert_id: 'imported-1' } }]),
    });
    expect(response.status).toBe(200);
    const events = await exported(us, { fromDate: daysAgo(1), toDate: daysAgo(0), events: [] });
    expect(events).toEqual([
      { event: 'Imported', properties: expect.objectContaining({ time, distinct_id: 'u-1', $insert_id: 'imported-1' }) },
    ]);
  });

  test('filtered by event names', async () => {
    platforms.mixpanel.seed(US.id, marchEvents());
    const purchases = await exported(us, { fromDate: '2025-03-01', toDate: '2025-03-05', events: ['Purchase'] });
    expect(purchases.map((event) => event.event)).toEqual(Array(5).fill('Purchase'));
    const both = await exported(us, { fromDate: '2025-03-01', toDate: '2025-03-05', events: ['Purchase', 'Signup', 'Never Sent'] });
    expect(both).toHaveLength(15);
    expect(await exported(us, { fromDate: '2025-03-01', toDate: '2025-03-05', events: ['Never Sent'] })).toEqual([]);
  });

  test('in batches of at most batchSize', async () => {
    platforms.mixpanel.seed(US.id, marchEvents());
    const batches = await batchesOf(us, { fromDate: '2025-03-01', toDate: '2025-03-05', events: [], batchSize: 4 });
    expect(batches.map((batch) => batch.length)).toEqual([4, 4, 4, 3]);
    await expect(batchesOf(us, { fromDate: '2025-03-01', toDate: '2025-03-05', events: [], batchSize: 0 })).rejects.toThrow(RangeError);
  });

  test('20,000 events stream through in 20 batches of 1,000', async () => {
    const start = at('2025-03-01T00:00:00Z');
    platforms.mixpanel.seed(
      US.id,
      Array.from({ length: 20_000 }, (_, n) =>
        seeded(n % 2 ? 'Signup' : 'Purchase', start + (n % 86_400) * 2, { plan: 'Growth', note: `event ${n}` }),
      ),
    );
    let count = 0;
    let batches = 0;
    let previous = 0;
    for await (const batch of exportEvents(us, { fromDate: '2025-03-01', toDate: '2025-03-02', events: [] })) {
      expect(batch.length).toBe(1000);
      batches += 1;
      count += batch.length;
      for (const event of batch) {
        expect(event.properties.time as number).toBeGreaterThanOrEqual(previous);
        previous = event.properties.time as number;
      }
    }
    expect({ count, batches }).toEqual({ count: 20_000, batches: 20 });
  });

  test('stopping after the first batch: one batch is taken, and the next export is answered whole', async () => {
    platforms.mixpanel.seed(
      US.id,
      Array.from({ length: 5000 }, (_, n) => seeded('Signup', at('2025-03-01T00:00:00Z') + n)),
    );
    const seen: number[] = [];
    for await (const batch of exportEvents(us, { fromDate: '2025-03-01', toDate: '2025-03-01', events: [], batchSize: 100 })) {
      seen.push(batch.length);
      break;
    }
    expect(seen).toEqual([100]);
    // The sandbox still answers.
    expect(await exported(us, { fromDate: '2025-03-01', toDate: '2025-03-01', events: [], batchSize: 5000 })).toHaveLength(5000);
  });

  test('an EU session reads the EU project only, on the EU host', async () => {
    platforms.mixpanel.seed(US.id, [seeded('Signup', at('2025-03-01T10:00:00Z'))]);
    platforms.mixpanel.seed(EU.id, [seeded('Anmeldung', at('2025-03-01T11:00:00Z'))]);
    expect((await exported(eu, { fromDate: '2025-03-01', toDate: '2025-03-01', events: [] })).map((event) => event.event)).toEqual([
      'Anmeldung',
    ]);
    expect((await exported(us, { fromDate: '2025-03-01', toDate: '2025-03-01', events: [] })).map((event) => event.event)).toEqual([
      'Signup',
    ]);
    // The service account has one project per residency: the US project on the EU host is refused.
    const response = await fetch(
      `${platforms.url}/mixpanel/eu/api/2.0/export?project_id=${US.id}&from_date=2025-03-01&to_date=2025-03-01`,
      {
        headers: { Authorization: `Basic ${basic(SANDBOX_MIXPANEL.username, SANDBOX_MIXPANEL.secret)}` },
      },
    );
    expect(response.status).toBe(401);
  });
});

describe('refusals', () => {
  const MARCH_1 = { fromDate: '2025-03-01', toDate: '2025-03-01', events: [] };

  test('a revoked secret: needs_reauth', async () => {
    const revoked = { ...us, accessToken: basic(SANDBOX_MIXPANEL.username, 'revoked') };
    const error = await refusal(exported(revoked, MARCH_1));
    expect(error.code).toBe('needs_reauth');
    expect(error.message).toMatch(/^Mixpanel refused the service account: Invalid credentials/);
  });

  test('the 61st query within an hour: rate_limited, retrying in 10 minutes; per project, and reset() forgets it', async () => {
    expect(MIXPANEL_EXPORT_LIMIT.queries).toBe(60);
    for (let query = 0; query < 60; query++) await exported(us, MARCH_1);
    expect(platforms.mixpanel.exportCalls(US.id)).toBe(60);
    const before = Date.now();
    const error = await refusal(exported(us, MARCH_1));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAt!.getTime()).toBeGreaterThanOrEqual(before + 10 * 60 * 1000);
    expect(error.retryAt!.getTime()).toBeLessThanOrEqual(Date.now() + 10 * 60 * 1000);
    expect(platforms.mixpanel.exportCalls(US.id)).toBe(60);
    expect(await exported(eu, MARCH_1)).toEqual([]);
    platforms.mixpanel.reset();
    expect(await exported(us, MARCH_1)).toEqual([]);
  });

  test('from_date after to_date: invalid, in Mixpanel’s words; so is from_date in the future', async () => {
    const error = await refusal(exported(us, { fromDate: '2025-03-05', toDate: '2025-03-01', events: [] }));
    expect(error.code).toBe('invalid');
    expect(error.message).toBe("Mixpanel refused the export: 'to_date' (2025-03-01) cannot be before 'from_date' (2025-03-05)");
    const future = await refusal(exported(us, { fromDate: daysAgo(-2), toDate: daysAgo(-2), events: [] }));
    expect(future.code).toBe('invalid');
    expect(future.message).toMatch(/'from_date' \(\d{4}-\d{2}-\d{2}\) cannot be in the future/);
    expect((await refusal(exported(us, { fromDate: '2025-02-30', toDate: '2025-03-01', events: [] }))).message).toMatch(
      /'from_date' is invalid/,
    );
    // Refused queries do not count against the hourly limit.
    expect(platforms.mixpanel.exportCalls(US.id)).toBe(0);
  });

  test('Mixpanel failing: retryable', async () => {
    platforms.conversions.fail('mixpanel', { status: 503, seconds: 30 });
    expect((await refusal(exported(us, MARCH_1))).code).toBe('retryable');
  });

  test('on the wire: JSON lines as application/json; refusals as { request, error }', async () => {
    platforms.mixpanel.seed(US.id, [seeded('Signup', at('2025-03-01T10:00:00Z')), seeded('Purchase', at('2025-03-01T09:00:00Z'))]);
    const url = (query: string) => `${platforms.url}/mixpanel/us/api/2.0/export?project_id=${US.id}&${query}`;
    const auth = { Authorization: `Basic ${basic(SANDBOX_MIXPANEL.username, SANDBOX_MIXPANEL.secret)}` };
    const ok = await fetch(url(`from_date=2025-03-01&to_date=2025-03-01&event=${encodeURIComponent('["Signup","Purchase"]')}`), {
      headers: auth,
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json');
    const lines = (await ok.text()).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => (JSON.parse(line) as ExportedEvent).event)).toEqual(['Purchase', 'Signup']);

    const bad = await fetch(url('from_date=2025-03-01&event=Signup'), { headers: auth });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      request: `/api/2.0/export?project_id=${US.id}&from_date=2025-03-01&event=Signup`,
      error: "'to_date' is a required parameter",
    });
    const notArray = await fetch(url('from_date=2025-03-01&to_date=2025-03-01&event=Signup'), { headers: auth });
    expect(((await notArray.json()) as { error: string }).error).toBe("'event' is invalid: must be a JSON array of event names");
    const anonymous = await fetch(url('from_date=2025-03-01&to_date=2025-03-01'));
    expect(anonymous.status).toBe(401);
  });
});

describe('reading the stream', () => {
  let fetched: jest.SpyInstance;
  afterEach(() => fetched.mockRestore());

  /** A 200 whose body arrives in exactly these chunks. */
  function streamed(chunks: Uint8Array[]) {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
  }

  test('lines split across chunks (mid-character too) come out whole; malformed lines are skipped and reported', async () => {
    const text = [
      JSON.stringify({ event: 'Café ☕ visited', properties: { time: 1, distinct_id: 'ü' } }),
      'not json',
      JSON.stringify({ event: 'No properties' }),
      JSON.stringify({ properties: { time: 2 } }),
      '',
      JSON.stringify({ event: 'Last', properties: { time: 3 } }),
    ].join('\n'); // no trailing newline: the last line still counts
    const bytes = new TextEncoder().encode(text);
    // Three-byte chunks split '☕' (three bytes) and 'é' (two) as well as every line.
    const chunks = Array.from({ length: Math.ceil(bytes.length / 3) }, (_, i) => bytes.slice(i * 3, i * 3 + 3));
    fetched = jest.spyOn(globalThis, 'fetch').mockResolvedValue(streamed(chunks));
    const malformed: string[] = [];
    const events = await exported(us, {
      ...{ fromDate: '2025-03-01', toDate: '2025-03-01', events: [] },
      onMalformed: (line) => malformed.push(line),
    });
    expect(events).toEqual([
      { event: 'Café ☕ visited', properties: { time: 1, distinct_id: 'ü' } },
      { event: 'Last', properties: { time: 3 } },
    ]);
    expect(malformed).toEqual(['not json', '{"event":"No properties"}', '{"properties":{"time":2}}']);
  });

  test("Mixpanel's own hosts: the residency's data host, the event names as a JSON array", async () => {
    const configured = process.env.MIXPANEL_API_URL_EU;
    process.env.MIXPANEL_API_URL_EU = '';
    fetched = jest.spyOn(globalThis, 'fetch').mockResolvedValue(streamed([]));
    try {
      expect(await exported(eu, { fromDate: '2025-03-01', toDate: '2025-03-02', events: ['Sign up', 'Purchase'] })).toEqual([]);
    } finally {
      process.env.MIXPANEL_API_URL_EU = configured;
    }
    const [url, init] = fetched.mock.calls[0] as [string, RequestInit];
    const asked = new URL(url);
    expect(`${asked.origin}${asked.pathname}`).toBe('https://data-eu.mixpanel.com/api/2.0/export');
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      project_id: EU.id,
      from_date: '2025-03-01',
      to_date: '2025-03-02',
      event: '["Sign up","Purchase"]',
    });
    expect(init.headers).toEqual(
      expect.objectContaining({ Authorization: `Basic ${basic(SANDBOX_MIXPANEL.username, SANDBOX_MIXPANEL.secret)}` }),
    );
  });

  test('a Retry-After on a 429 is honoured', async () => {
    fetched = jest
      .spyOn(globalThis, 'fetch')
      .mockResolvedValue(
        new Response(JSON.stringify({ error: 'Query rate limit exceeded' }), { status: 429, headers: { 'Retry-After': '120' } }),
      );
    const before = Date.now();
    const error = await refusal(exported(us, { fromDate: '2025-03-01', toDate: '2025-03-01', events: [] }));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAt!.getTime()).toBeGreaterThanOrEqual(before + 120_000);
    expect(error.retryAt!.getTime()).toBeLessThan(before + 130_000);
  });
});
