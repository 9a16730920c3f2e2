import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { conversionEventSchema, type ConversionEvent } from '@/lib/shared/conversions/event';
import { mixpanel, type MixpanelSession } from '@/lib/server/connectors/mixpanel';
import { insertIdOf } from '@/lib/server/connectors/mixpanel/delivery';
import type { Delivery, Session } from '@/lib/server/connectors/types';
import { type FakePlatforms, SANDBOX_MIXPANEL } from '@/sandbox/platforms';
import { refusal } from '@/tests/api/helpers/delivery';
import { closeMixpanelSandbox, connectMixpanel, openMixpanelSandbox } from '@/tests/api/helpers/mixpanel';
import type { LogSpy } from '@/tests/fixtures/logSpy';

// Conversions imported into a Mixpanel project, through the connector and the sandbox's Import API:
// batches of up to 2,000 and 2 MB (a 413 split in halves), Mixpanel's dedup by (event, distinct_id, time, $insert_id), strict mode's
// partial success, and every whole-request failure classified.
const US = SANDBOX_MIXPANEL.projects.US;
const EU = SANDBOX_MIXPANEL.projects.EU;
const PROJECT: { id: string; name: string } = { id: US.id, name: US.name };

let platforms: FakePlatforms;
let session: Session;
let logged: LogSpy;
const deliver = mixpanel.deliver as Delivery;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** One fixed time for the fixtures: a conversion sent again is the same Mixpanel event only if its time is the same. */
const AN_HOUR_AGO = nowSeconds() - 3600;
const basic = (username: string, secret: string) => Buffer.from(`${username}:${secret}`).toString('base64');
const GOOD_AUTH = basic(SANDBOX_MIXPANEL.username, SANDBOX_MIXPANEL.secret);

function conversion(n: number, overrides: Partial<ConversionEvent> = {}): ConversionEvent {
  return conversionEventSchema.parse({
    id: `order-${n}`,
    name: 'Purchase',
    time: AN_HOUR_AGO,
    value: 25 + n,
    currency: 'USD',
    user: { email: sha256(`buyer${n}@example.com`), phone: sha256(`1555000${n}`), externalId: sha256(`user-${n}`) },
    clickIds: { gclid: `gclid-${n}`, fbc: `fb.1.1700000000000.click${n}`, fbp: `fb.1.1700000000000.${n}`, msclkid: `ms${n}` },
    context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (sandbox)', pageUrl: 'https://shop.example.com/thanks', actionSource: 'website' },
    ...overrides,
  });
}
const batch = (count: number, from = 0) => Array.from({ length: count }, (_, i) => conversion(from + i));

const received = (target: string = PROJECT.id) => platforms.conversions.list('mixpanel').filter((entry) => entry.target === target);
const receivedWithInsertId = (insertId: string) =>
  platforms.conversions.list('mixpanel').filter((entry) => entry.key.endsWith(`|${insertId}`));
/** Mixpanel's dedup key of a conversion as the connector sends it. */
const keyOf = (event: ConversionEvent, projectId = PROJECT.id) =>
  `${projectId}|${event.name}|${event.user.externalId ?? event.user.email ?? ''}|${event.time * 1000}|${insertIdOf(event.id)}`;

interface ImportAnswer {
  code?: number;
  error?: string;
  status?: string;
  num_records_imported?: number;
  failed_records?: Array<{ index: number; insert_id: string; field: string; message: string }>;
}

/** A raw /import call, as any client would make it. */
async function postImport(
  body: string,
  options: { residency?: 'us' | 'eu' | 'in'; query?: string; auth?: string | null; contentType?: string; gzip?: boolean } = {},
) {
  const {
    residency = 'us',
    query = `strict=1&project_id=${US.id}`,
    auth = GOOD_AUTH,
    contentType = 'application/json',
    gzip = false,
  } = options;
  const response = await fetch(`${platforms.url}/mixpanel/${residency}/import?${query}`, {
    method: 'POST',
    headers: {
      'Content-Type': contentType,
      ...(auth === null ? {} : { Authorization: `Basic ${auth}` }),
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    },
    body: gzip ? new Uint8Array(gzipSync(body)) : body,
  });
  return { status: response.status, body: (await response.json()) as ImportAnswer };
}

let serial = 0;
/** A valid wire event with a fresh $insert_id. */
function wireEvent(properties: Record<string, unknown> = {}, event: unknown = 'Signup') {
  serial += 1;
  return {
    event,
    properties: { time: Date.now() - 60_000, distinct_id: `raw-user-${serial}`, $insert_id: `raw-${serial}`, ...properties },
  };
}

beforeAll(async () => {
  // Refusals are logged: checked for secrets at the end.
  ({ platforms, logged } = await openMixpanelSandbox());
  const connection = await connectMixpanel(US.id, 'US');
  expect(connection.accountName).toBe(US.name);
  session = connection.session;
});
afterAll(() => closeMixpanelSandbox({ platforms, logged }));
afterEach(() => {
  platforms.conversions.failures.delete('mixpanel');
});

describe('the session', () => {
  test('carries the Basic credential, the project and the residency the service account was checked against', () => {
    expect(session).toEqual({ accessToken: GOOD_AUTH, rotated: null, projectId: US.id, residency: 'US' } satisfies MixpanelSession);
  });

  test('a wrong secret is refused when the session is opened: needs_reauth', async () => {
    const error = await refusal(
      mixpanel.openSession({ type: 'mixpanel', username: SANDBOX_MIXPANEL.username, secret: 'revoked', projectId: US.id, residency: 'US' }),
    );
    expect(error.code).toBe('needs_reauth');
  });
});

describe('importing conversions', () => {
  test('2,000 events go in one call, each delivered and in the ledger as Mixpanel got it', async () => {
    expect(deliver.maxBatch).toBe(2000);
    const events = batch(2000);
    const outcomes = await deliver.send(session, PROJECT, PROJECT, events);
    expect(outcomes).toHaveLength(2000);
    expect(outcomes.every((outcome) => outcome.status === 'delivered')).toBe(true);
    expect(outcomes.map((outcome) => outcome.id)).toEqual(events.map((event) => event.id));
    expect(received()).toHaveLength(2000);
    expect(platforms.conversions.calls('mixpanel')).toBe(1);
    expect(new Set(received().map((entry) => entry.key))).toEqual(new Set(events.map((event) => keyOf(event))));

    const first = received().find((entry) => entry.key === keyOf(events[0]!));
    expect(first?.event).toEqual({
      event: 'Purchase',
      properties: {
        time: events[0]!.time * 1000,
        distinct_id: sha256('user-0'),
        $insert_id: sha256('order-0').slice(0, 32),
        source: 'signalbridge',
        event_id: 'order-0',
        value: 25,
        currency: 'USD',
        email_sha256: sha256('buyer0@example.com'),
        phone_sha256: sha256('15550000'),
        external_id_sha256: sha256('user-0'),
        gclid: 'gclid-0',
        fbc: 'fb.1.1700000000000.click0',
        fbp: 'fb.1.1700000000000.0',
        msclkid: 'ms0',
        $current_url: 'https://shop.example.com/thanks',
        ip: '203.0.113.7',
      },
    });
  });

  test('the same events sent again are one event each for Mixpanel: still 2,000, each received twice, same $insert_id', async () => {
    const before = new Map(received().map((entry) => [entry.key, (entry.event.properties as { $insert_id: string }).$insert_id]));
    const outcomes = await deliver.send(session, PROJECT, PROJECT, batch(2000));
    expect(outcomes.every((outcome) => outcome.status === 'delivered')).toBe(true);
    expect(received()).toHaveLength(2000);
    expect(received().every((entry) => entry.receipts === 2)).toBe(true);
    expect(new Map(received().map((entry) => [entry.key, (entry.event.properties as { $insert_id: string }).$insert_id]))).toEqual(before);
    expect(platforms.conversions.calls('mixpanel')).toBe(2);
  });

  test('a restated event (same name, user, time and id) stays one event, and Mixpanel keeps the latest copy', async () => {
    const original = conversion(7000);
    await deliver.send(session, PROJECT, PROJECT, [original]);
    await deliver.send(session, PROJECT, PROJECT, [{ ...original, value: 99 }]);
    const entries = received().filter((entry) => entry.key === keyOf(original));
    expect(entries).toHaveLength(1);
    expect(entries[0]!.receipts).toBe(2);
    expect((entries[0]!.event.properties as { value: number }).value).toBe(99);
  });

  test('the user is the hashed external id, else the hashed email, else empty (kept, outside user analysis)', async () => {
    const byEmail = conversion(7100, { user: { email: sha256('only-email@example.com') } });
    const nobody = conversion(7101, { user: {}, clickIds: {}, context: { actionSource: 'system_generated' } });
    expect(await deliver.send(session, PROJECT, PROJECT, [byEmail, nobody])).toEqual([
      { id: 'order-7100', status: 'delivered' },
      { id: 'order-7101', status: 'delivered' },
    ]);
    expect(receivedWithInsertId(insertIdOf('order-7100'))[0]?.event.properties).toMatchObject({
      distinct_id: sha256('only-email@example.com'),
      email_sha256: sha256('only-email@example.com'),
    });
    const anonymous = receivedWithInsertId(insertIdOf('order-7101'))[0]?.event.properties as Record<string, unknown>;
    expect(anonymous).toMatchObject({ distinct_id: '', source: 'signalbridge', value: 7126 });
    expect(
      Object.keys(anonymous).filter(
        (key) => key.endsWith('_sha256') || ['gclid', 'fbc', 'fbp', 'msclkid', 'ip', '$current_url'].includes(key),
      ),
    ).toEqual([]);
  });

  test('$insert_id is ≤ 36 characters of [A-Za-z0-9-], the same for the same event id, different for another', () => {
    const long = 'x'.repeat(100);
    for (const id of ['order-1', long, 'ünïcode/with spaces']) expect(insertIdOf(id)).toMatch(/^[A-Za-z0-9-]{1,36}$/);
    expect(insertIdOf('order-1')).toBe(insertIdOf('order-1'));
    expect(insertIdOf('order-1')).not.toBe(insertIdOf('order-2'));
  });

  test('an EU project is imported through the EU host (the residency comes from the session)', async () => {
    const connection = await mixpanel.auth.key!.connect({
      username: SANDBOX_MIXPANEL.username,
      secret: SANDBOX_MIXPANEL.secret,
      projectId: EU.id,
      residency: 'EU',
    });
    const euSession = await mixpanel.openSession(connection.credential);
    const event = conversion(7200);
    expect(await deliver.send(euSession, { id: EU.id, name: EU.name }, { id: EU.id, name: EU.name }, [event])).toEqual([
      { id: 'order-7200', status: 'delivered' },
    ]);
    expect(received(EU.id).map((entry) => entry.key)).toEqual([keyOf(event, EU.id)]);
  });
});

describe('strict mode: Mixpanel imports the valid rows and names the others', () => {
  test('2,001 events are refused as a whole: invalid, nothing imported', async () => {
    const error = await refusal(deliver.send(session, PROJECT, PROJECT, batch(2001, 10_000)));
    expect(error.code).toBe('invalid');
    expect(error.message).toContain('max limit of 2000 events');
    expect(receivedWithInsertId(insertIdOf('order-10000'))).toEqual([]);
  });

  test('two bad rows (in the future, before 1971) are rejected with Mixpanel’s reasons; the rest are delivered', async () => {
    const events = [
      conversion(20_000),
      conversion(20_001, { time: nowSeconds() + 2 * 3600 }),
      conversion(20_002),
      conversion(20_003, { time: 15_000_000 }),
      conversion(20_004),
    ];
    // check would hold both back; sent anyway, Mixpanel refuses them itself.
    expect(deliver.check(events[1]!, new Date())).not.toBeNull();
    expect(deliver.check(events[3]!, new Date())).not.toBeNull();
    const outcomes = await deliver.send(session, PROJECT, PROJECT, events);
    expect(outcomes).toEqual([
      { id: 'order-20000', status: 'delivered' },
      { id: 'order-20001', status: 'rejected', reason: expect.stringMatching(/properties\.time.*more than 1 hour in the future/) },
      { id: 'order-20002', status: 'delivered' },
      { id: 'order-20003', status: 'rejected', reason: expect.stringMatching(/properties\.time.*after 1971-01-01/) },
      { id: 'order-20004', status: 'delivered' },
    ]);
    expect([0, 2, 4].map((n) => received().filter((entry) => entry.key === keyOf(events[n]!)).length)).toEqual([1, 1, 1]);
    expect(receivedWithInsertId(insertIdOf('order-20001'))).toEqual([]);
    expect(receivedWithInsertId(insertIdOf('order-20003'))).toEqual([]);
  });
});

describe('size: Mixpanel takes 2 MB of uncompressed JSON a request', () => {
  /** The import requests the connector makes (their bodies as sent), the sandbox still answering them. */
  function watchImports(answer?: (events: unknown[]) => Response | null) {
    const realFetch = globalThis.fetch;
    const bodies: string[] = [];
    const spy = jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      if (String(input).includes('/import?') && typeof init?.body === 'string') {
        bodies.push(init.body);
        const override = answer?.(JSON.parse(init.body) as unknown[]);
        if (override) return override;
      }
      return realFetch(input, init);
    });
    return { bodies, restore: () => spy.mockRestore() };
  }
  const tooLarge = () =>
    new Response(JSON.stringify({ code: 413, error: 'request exceeds max limit of 2097152 bytes', status: 'Request Entity Too Large' }), {
      status: 413,
      headers: { 'Content-Type': 'application/json' },
    });
  /** Events of about 2.5 KB each (a long page address): 2,000 of them are over 2 MB. */
  const longEvents = (count: number, from: number) =>
    Array.from({ length: count }, (_, i) =>
      conversion(from + i, { context: { actionSource: 'website', pageUrl: `https://shop.example.com/${'p'.repeat(1900)}` } }),
    );

  test('2,000 events over 2 MB go in several requests, each at most 2 MB, and every one is delivered', async () => {
    const events = longEvents(2000, 40_000);
    expect(JSON.stringify(events).length).toBeGreaterThan(2 * 1024 * 1024);
    const watched = watchImports();
    try {
      const outcomes = await deliver.send(session, PROJECT, PROJECT, events);
      expect(outcomes.filter((outcome) => outcome.status === 'delivered')).toHaveLength(2000);
    } finally {
      watched.restore();
    }
    expect(watched.bodies.length).toBeGreaterThan(1);
    for (const body of watched.bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(events.every((event) => received().some((entry) => entry.key === keyOf(event)))).toBe(true);
  });

  test('a 413 splits the request in halves until Mixpanel takes them: nothing is lost', async () => {
    // Mixpanel counting its limit otherwise than we do: it refuses any request of more than 250 events.
    const watched = watchImports((sent) => (sent.length > 250 ? tooLarge() : null));
    const events = batch(1000, 50_000);
    try {
      const outcomes = await deliver.send(session, PROJECT, PROJECT, events);
      expect(outcomes.every((outcome) => outcome.status === 'delivered')).toBe(true);
    } finally {
      watched.restore();
    }
    // 1,000 → 500 + 500 → four of 250.
    expect(watched.bodies.map((body) => (JSON.parse(body) as unknown[]).length)).toEqual([1000, 500, 250, 250, 500, 250, 250]);
    expect(events.every((event) => received().some((entry) => entry.key === keyOf(event)))).toBe(true);
  });

  test('one event that is still 413 alone is rejected as too large; the others are delivered', async () => {
    // Our events are far under 2 MB each (the event schema bounds every field): Mixpanel refusing one anyway.
    const events = batch(5, 60_000);
    const refusedId = insertIdOf('order-60003');
    const holds = (sent: unknown[]) =>
      sent.some((event) => (event as { properties: { $insert_id: string } }).properties.$insert_id === refusedId);
    const watched = watchImports((sent) => (holds(sent) ? tooLarge() : null));
    let outcomes;
    try {
      outcomes = await deliver.send(session, PROJECT, PROJECT, events);
    } finally {
      watched.restore();
    }
    expect(outcomes).toEqual([
      { id: 'order-60000', status: 'delivered' },
      { id: 'order-60001', status: 'delivered' },
      { id: 'order-60002', status: 'delivered' },
      { id: 'order-60003', status: 'rejected', reason: expect.stringMatching(/^Too large: Mixpanel refuses/) },
      { id: 'order-60004', status: 'delivered' },
    ]);
    // 5 → 3 (imported) + 2 (413) → 1 (413, rejected) + 1 (imported).
    expect(watched.bodies.map((body) => (JSON.parse(body) as unknown[]).length)).toEqual([5, 3, 2, 1, 1]);
    expect(receivedWithInsertId(refusedId)).toEqual([]);
    expect(events.filter((event) => received().some((entry) => entry.key === keyOf(event)))).toHaveLength(4);
  });
});

describe('check holds back what Mixpanel would refuse', () => {
  test('an hour ahead or before 1971 is held back; a recent event, an old one and a little clock skew pass', () => {
    const now = new Date();
    expect(deliver.check(conversion(1), now)).toBeNull();
    expect(deliver.check(conversion(2, { time: Date.UTC(2015, 0, 1) / 1000 }), now)).toBeNull();
    expect(deliver.check(conversion(3, { time: nowSeconds() + 5 * 60 }), now)).toBeNull();
    expect(deliver.check(conversion(4, { time: nowSeconds() + 3600 }), now)).toMatch(/^In the future/);
    expect(deliver.check(conversion(5, { time: Date.UTC(1970, 11, 31) / 1000 }), now)).toMatch(/before 1971/);
    expect(deliver.check(conversion(6, { time: Date.UTC(1971, 0, 1) / 1000 }), now)).toBeNull();
  });
});

describe('failures of the whole request', () => {
  test('a revoked secret needs reauth', async () => {
    const revoked: MixpanelSession = { ...(session as MixpanelSession), accessToken: basic(SANDBOX_MIXPANEL.username, 'revoked-secret') };
    const error = await refusal(deliver.send(revoked, PROJECT, PROJECT, [conversion(30_000)]));
    expect(error.code).toBe('needs_reauth');
    expect(receivedWithInsertId(insertIdOf('order-30000'))).toEqual([]);
  });

  test('a project other than the session’s is forbidden (it is not a dead login)', async () => {
    const error = await refusal(deliver.send(session, PROJECT, { id: EU.id, name: EU.name }, [conversion(30_001)]));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain(US.id);
  });

  test('Mixpanel failing with 500 is retryable', async () => {
    platforms.conversions.fail('mixpanel', { status: 500, seconds: 5 });
    const error = await refusal(deliver.send(session, PROJECT, PROJECT, [conversion(30_002)]));
    expect(error.code).toBe('retryable');
  });

  test('Mixpanel’s rate limit (429) is rate_limited, and nothing of the failed requests was imported', async () => {
    platforms.conversions.fail('mixpanel', { status: 429, seconds: 5 });
    const raw = await postImport(JSON.stringify([wireEvent()]));
    expect(raw).toEqual({
      status: 429,
      body: { code: 429, error: expect.stringContaining('exceeded rate limits'), status: 'Too Many Requests' },
    });
    const error = await refusal(deliver.send(session, PROJECT, PROJECT, [conversion(30_003)]));
    expect(error.code).toBe('rate_limited');
    expect(receivedWithInsertId(insertIdOf('order-30002'))).toEqual([]);
    expect(receivedWithInsertId(insertIdOf('order-30003'))).toEqual([]);
  });
});

describe('the sandbox speaks Mixpanel’s Import API', () => {
  test('all valid: 200 with the count; seconds and milliseconds are the same time (one event)', async () => {
    const seconds = Math.floor(Date.now() / 1000) - 120;
    const inSeconds = wireEvent({ time: seconds });
    const inMs = { ...inSeconds, properties: { ...inSeconds.properties, time: seconds * 1000 } };
    const { status, body } = await postImport(JSON.stringify([inSeconds, inMs]));
    expect(status).toBe(200);
    expect(body).toEqual({ code: 200, num_records_imported: 2, status: 'OK' });
    expect(receivedWithInsertId(inSeconds.properties.$insert_id).map((entry) => [entry.key, entry.receipts])).toEqual([
      [`${US.id}|Signup|${inSeconds.properties.distinct_id}|${seconds * 1000}|${inSeconds.properties.$insert_id}`, 2],
    ]);
  });

  test('$insert_id too long, with other characters, or missing is refused; the valid row is imported (400, partial success)', async () => {
    const good = wireEvent();
    const tooLong = wireEvent({ $insert_id: 'a'.repeat(37) });
    const slash = wireEvent({ $insert_id: 'order/1' });
    const missing = wireEvent();
    delete (missing.properties as Record<string, unknown>).$insert_id;
    const { status, body } = await postImport(JSON.stringify([tooLong, good, slash, missing]));
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 400, status: 'Bad Request', num_records_imported: 1 });
    expect(body.failed_records).toEqual([
      { index: 0, insert_id: 'a'.repeat(37), field: 'properties.$insert_id', message: expect.stringContaining('at most 36 characters') },
      { index: 2, insert_id: 'order/1', field: 'properties.$insert_id', message: expect.stringContaining('at most 36 characters') },
      { index: 3, insert_id: '', field: 'properties.$insert_id', message: "'properties.$insert_id' is required" },
    ]);
    expect(receivedWithInsertId(good.properties.$insert_id)).toHaveLength(1);
    expect(receivedWithInsertId('a'.repeat(37))).toEqual([]);
  });

  test('placeholder distinct_ids are refused; the empty string is kept', async () => {
    const placeholders = [
      'null',
      'undefined',
      'Anonymous',
      'anon',
      'none',
      'nil',
      'n/a',
      '00000000-0000-0000-0000-000000000000',
      '-1',
      '0',
    ];
    const events = [...placeholders.map((distinctId) => wireEvent({ distinct_id: distinctId })), wireEvent({ distinct_id: '' })];
    const { status, body } = await postImport(JSON.stringify(events));
    expect(status).toBe(400);
    expect(body.num_records_imported).toBe(1);
    expect(body.failed_records?.map((record) => [record.index, record.field])).toEqual(
      placeholders.map((_, index) => [index, 'properties.distinct_id']),
    );
    expect(body.failed_records?.[0]?.message).toContain("'null' is a placeholder value");
    const kept = events.at(-1)!;
    expect(receivedWithInsertId(kept.properties.$insert_id).map((entry) => entry.key)).toEqual([
      `${US.id}|Signup||${kept.properties.time}|${kept.properties.$insert_id}`,
    ]);
  });

  test('time before 1971, more than an hour ahead, or missing, and an event without a name are refused', async () => {
    const noTime = wireEvent();
    delete (noTime.properties as Record<string, unknown>).time;
    const events = [
      wireEvent({ time: 15_000_000 }),
      wireEvent({ time: Date.now() + 2 * 3600 * 1000 }),
      noTime,
      wireEvent({}, ''),
      wireEvent({ time: Date.now() + 30 * 60 * 1000 }),
    ];
    const { status, body } = await postImport(JSON.stringify(events));
    expect(status).toBe(400);
    expect(body.num_records_imported).toBe(1);
    expect(body.failed_records?.map((record) => [record.index, record.field, record.message])).toEqual([
      [0, 'properties.time', "'properties.time' is invalid: must be after 1971-01-01"],
      [1, 'properties.time', "'properties.time' is invalid: must not be more than 1 hour in the future"],
      [2, 'properties.time', expect.stringContaining('must be specified as seconds or milliseconds since epoch')],
      [3, 'event', "'event' is invalid: must be a non-empty string"],
    ]);
  });

  test('without strict=1 the invalid rows are dropped silently', async () => {
    const good = wireEvent();
    const bad = wireEvent({ distinct_id: 'null' });
    const { status, body } = await postImport(JSON.stringify([good, bad]), { query: `project_id=${US.id}` });
    expect(status).toBe(200);
    expect(body).toEqual({ code: 200, num_records_imported: 1, status: 'OK' });
    expect(receivedWithInsertId(bad.properties.$insert_id)).toEqual([]);
  });

  test('newline-delimited JSON and a gzipped body are accepted', async () => {
    const lines = [wireEvent(), wireEvent()];
    const ndjson = await postImport(lines.map((line) => JSON.stringify(line)).join('\n'), { contentType: 'application/x-ndjson' });
    expect(ndjson).toEqual({ status: 200, body: { code: 200, num_records_imported: 2, status: 'OK' } });
    const zipped = wireEvent();
    expect(await postImport(JSON.stringify([zipped]), { gzip: true })).toEqual({
      status: 200,
      body: { code: 200, num_records_imported: 1, status: 'OK' },
    });
    for (const event of [...lines, zipped]) expect(receivedWithInsertId(event.properties.$insert_id)).toHaveLength(1);
  });

  test('a wrong secret, no credentials, no project_id, or a project the account may not use (another residency’s) is 401', async () => {
    const body = JSON.stringify([wireEvent()]);
    const unauthorized = { code: 401, error: 'Invalid credentials', status: 'Unauthorized' };
    expect(await postImport(body, { auth: basic(SANDBOX_MIXPANEL.username, 'wrong') })).toEqual({ status: 401, body: unauthorized });
    expect(await postImport(body, { auth: null })).toEqual({ status: 401, body: unauthorized });
    expect(await postImport(body, { query: `strict=1&project_id=${EU.id}` })).toEqual({ status: 401, body: unauthorized });
    expect(await postImport(body, { query: 'strict=1&project_id=999999' })).toEqual({ status: 401, body: unauthorized });
    expect(await postImport(body, { residency: 'eu', query: `strict=1&project_id=${US.id}` })).toEqual({ status: 401, body: unauthorized });
    const noProject = await postImport(body, { query: 'strict=1' });
    expect(noProject.status).toBe(401);
    expect(noProject.body.error).toContain('project_id is required');
    // The same event is accepted on its own residency's host.
    expect((await postImport(body, { residency: 'eu', query: `strict=1&project_id=${EU.id}` })).status).toBe(200);
  });

  test('more than 2 MB uncompressed is 413, gzipped or not; an empty array or a body that is not JSON is 400', async () => {
    const big = wireEvent({ padding: 'x'.repeat(2 * 1024 * 1024) });
    expect(await postImport(JSON.stringify([big]))).toEqual({
      status: 413,
      body: { code: 413, error: 'request exceeds max limit of 2097152 bytes', status: 'Request Entity Too Large' },
    });
    // Just under the limit is imported.
    const padded = wireEvent();
    const under = wireEvent({ padding: 'x'.repeat(2 * 1024 * 1024 - JSON.stringify([padded]).length - 20) });
    expect(JSON.stringify([under]).length).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect((await postImport(JSON.stringify([under]))).status).toBe(200);
    expect((await postImport(JSON.stringify([big]), { gzip: true })).status).toBe(413);
    expect(receivedWithInsertId(big.properties.$insert_id)).toEqual([]);
    expect((await postImport('[]')).status).toBe(400);
    expect(await postImport('{not json')).toEqual({
      status: 400,
      body: { code: 400, error: 'unable to parse request body as JSON', status: 'Bad Request' },
    });
  });

  test('what was logged about refusals never carries the service account secret', () => {
    expect(logged.entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(logged.entries)).not.toContain(SANDBOX_MIXPANEL.secret);
    expect(JSON.stringify(logged.entries)).not.toContain(GOOD_AUTH);
  });
});
