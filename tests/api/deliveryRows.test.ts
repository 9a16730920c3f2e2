import deliveriesRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/deliveries';
import rowRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/deliveries/[deliveryId]/rows/[eventId]';
import revealRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/deliveries/[deliveryId]/rows/[eventId]/reveal';
import testRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/test';
import type { DeliveryRow } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { createConversionRouter } from '@/lib/server/delivery/router';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { packEvents } from '@/lib/server/queue/pubsub';

import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { setUpConversion, type ConversionSetup } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { createTestMember } from '@/tests/fixtures/firebase';
import { inflateRawSync } from 'node:zlib';
import { PAYLOAD_CHUNK_BYTES, payloadChunks, recordDelivery } from '@/lib/server/repos/deliveryLog';

// The delivery log's per-row debugger (what was sent for a row, hashed, and the platform's answer), events
// the event-name filter left out, and Meta's test event code.
let s: Record<'deliveries' | 'row' | 'reveal' | 'test', TestServer>;
let platforms: FakePlatforms;
let setup: ConversionSetup;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ deliveries: deliveriesRoute, row: rowRoute, reveal: revealRoute, test: testRoute });
  setup = await setUpConversion('meta_ads', { events: ['Lead', 'Purchase'] });
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const ids = () => ({ orgId: setup.orgId, id: setup.conversionId });
const latestRecord = async () => {
  const log = await call(s.deliveries, { token: setup.owner.token, query: ids() });
  return (log.body.deliveries as Array<{ id: string; rows: DeliveryRow[] }>)[0]!;
};

test("Send test event with Meta's test event code: Meta gets it, and the opened row shows the event as sent and Meta's answer", async () => {
  const sent = await call(s.test, { method: 'POST', token: setup.owner.token, query: ids(), body: { testEventCode: 'TEST98765' } });
  expect(sent.status).toBe(200);
  expect(sent.body.row).toMatchObject({ status: 'delivered' });
  const atMeta = platforms.conversions.list('meta').filter((entry) => entry.target === 'test:555000111');
  expect(atMeta.map((entry) => entry.event.test_event_code)).toContain('TEST98765');

  const record = await latestRecord();
  const row = record.rows[0]!;
  const opened = await call(s.row, { token: setup.owner.token, query: { ...ids(), deliveryId: record.id, eventId: row.id } });
  expect(opened.status).toBe(200);
  expect(opened.body).toMatchObject({ row: { id: row.id, status: 'delivered' }, test: true });
  const exchange = opened.body.exchange as { sent: Record<string, unknown>; requestAnswer: Record<string, unknown> };
  // As on the wire: Meta's field names, the email hashed (SHA-256 hex), never the address itself.
  expect(exchange.sent).toMatchObject({ event_id: row.id, event_name: 'Lead', action_source: 'website' });
  expect((exchange.sent.user_data as { em: string[] }).em).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);
  expect(JSON.stringify(exchange.sent)).not.toContain('@');
  // Meta answers for the whole call: its answer, kept once with the record, comes with the row.
  expect(exchange.requestAnswer).toMatchObject({ events_received: 1, messages: [] });
});

test('a test event code that is not one, or for a platform without them → 400 naming it, nothing sent', async () => {
  const before = platforms.conversions.list('meta').length;
  const bad = await call(s.test, { method: 'POST', token: setup.owner.token, query: ids(), body: { testEventCode: 'TEST 1; drop' } });
  expect(bad.status).toBe(400);
  expect(bad.body.fieldErrors).toHaveProperty('testEventCode');
  const google = await setUpConversion('google_ads');
  const refused = await call(s.test, {
    method: 'POST',
    token: google.owner.token,
    query: { orgId: google.orgId, id: google.conversionId },
    body: { testEventCode: 'TEST12345' },
  });
  expect(refused.status).toBe(400);
  expect(refused.body.fieldErrors).toEqual({ testEventCode: ['Google Ads takes no test event code'] });
  expect(platforms.conversions.list('meta')).toHaveLength(before);
});

test("a batch of 2,000 rows keeps every row as sent in deflated chunks under 1 MiB, the call's answer once, and any row opens", async () => {
  const rows: DeliveryRow[] = Array.from({ length: 2000 }, (_, index) => ({ id: `big-${index}`, status: 'delivered' }));
  // About 1.2 kB a row as sent, as a Data Manager event with every identifier is.
  const requestAnswer = { requestId: 'r-1', note: 'n'.repeat(500) };
  const exchanges = new Map(
    rows.map((row, index) => [
      row.id,
      {
        sent: { transactionId: row.id, pad: 'f'.repeat(1200) },
        requestAnswer,
        ...(index === 1000 ? { answer: { error: 'this row alone' } } : {}),
      },
    ]),
  );
  await recordDelivery(setup.orgId, setup.conversionId, { test: false, latencyMs: 40, rows, parked: [], exchanges });
  const record = await latestRecord();
  expect(record.rows).toHaveLength(2000);
  const payloads = await adminDb()
    .collection(`organizations/${setup.orgId}/conversions/${setup.conversionId}/deliveries/${record.id}/payloads`)
    .get();
  expect(payloads.size).toBeGreaterThanOrEqual(3);
  const inflated = (doc: FirebaseFirestore.DocumentSnapshot, field: string) => {
    const bytes = doc.get(field) as Uint8Array | undefined;
    return bytes ? inflateRawSync(bytes).toString('utf8') : '';
  };
  for (const doc of payloads.docs) {
    // Stored deflated (the payloads were a third of what a million events cost: docs/cost.md), each chunk's JSON within the bound.
    expect(doc.get('rows_json')).toBeUndefined();
    const json = Buffer.byteLength(inflated(doc, 'rows_deflated')) + Buffer.byteLength(inflated(doc, 'requests_deflated'));
    expect(json).toBeLessThanOrEqual(PAYLOAD_CHUNK_BYTES);
    expect((doc.get('rows_deflated') as Uint8Array).length).toBeLessThan(json / 4);
  }
  // The call's answer is stored once for the record, not once per row.
  const stored = payloads.docs.map((doc) => `${inflated(doc, 'rows_deflated')}${inflated(doc, 'requests_deflated')}`).join('');
  expect(stored.split('n'.repeat(500)).length - 1).toBe(1);
  for (const eventId of ['big-0', 'big-1000', 'big-1999']) {
    const opened = await call(s.row, { token: setup.owner.token, query: { ...ids(), deliveryId: record.id, eventId } });
    expect(opened.body.exchange).toEqual({
      sent: { transactionId: eventId, pad: 'f'.repeat(1200) },
      ...(eventId === 'big-1000' ? { answer: { error: 'this row alone' } } : {}),
      requestAnswer,
    });
  }
  const missing = await call(s.row, { token: setup.owner.token, query: { ...ids(), deliveryId: record.id, eventId: 'no-such-event' } });
  expect(missing.status).toBe(404);
});

test('a row of a record whose payload was kept as JSON text (before payloads were deflated) still opens with what was sent', async () => {
  const rows: DeliveryRow[] = [{ id: 'before-1', status: 'delivered' }];
  const exchanges = new Map([['before-1', { sent: { event_id: 'before-1', event_name: 'Lead' }, requestAnswer: { events_received: 1 } }]]);
  await recordDelivery(setup.orgId, setup.conversionId, { test: false, latencyMs: 10, rows, parked: [], exchanges });
  const record = await latestRecord();
  // As a record logged before this change was stored: its chunk as JSON text.
  const { chunks, requests } = payloadChunks(rows, exchanges);
  await adminDb()
    .doc(`organizations/${setup.orgId}/conversions/${setup.conversionId}/deliveries/${record.id}/payloads/0`)
    .set({ rows_json: chunks[0], requests_json: requests });
  const opened = await call(s.row, { token: setup.owner.token, query: { ...ids(), deliveryId: record.id, eventId: 'before-1' } });
  expect(opened.status).toBe(200);
  expect(opened.body.exchange).toEqual({ sent: { event_id: 'before-1', event_name: 'Lead' }, requestAnswer: { events_received: 1 } });
});

test("a visitor's IP address and browser are hidden from members; an owner or admin may reveal them, and the reveal is noted", async () => {
  const ip = '198.51.100.23';
  const userAgent = 'Mozilla/5.0 (Macintosh; visitor 4711)';
  const rows: DeliveryRow[] = [{ id: 'visitor-1', status: 'delivered' }];
  const sent = {
    event_id: 'visitor-1',
    event_name: 'Lead',
    user_data: { em: ['a'.repeat(64)], client_ip_address: ip, client_user_agent: userAgent },
  };
  const exchanges = new Map([['visitor-1', { sent, requestAnswer: { events_received: 1 } }]]);
  await recordDelivery(setup.orgId, setup.conversionId, { test: false, latencyMs: 30, rows, parked: [], exchanges });
  const row = { ...ids(), deliveryId: (await latestRecord()).id, eventId: 'visitor-1' };
  const [member, admin] = await Promise.all([createTestMember(setup.orgId), createTestMember(setup.orgId, 'admin')]);
  const notes = () => adminDb().collection(`organizations/${setup.orgId}/audit`).where('event_id', '==', 'visitor-1').get();

  // Opened by anyone (an owner too): both hidden, named, the rest as sent.
  for (const who of [member, setup.owner]) {
    const opened = await call(s.row, { token: who.token, query: row });
    expect(opened.status).toBe(200);
    expect(JSON.stringify(opened.body)).not.toContain(ip);
    expect(JSON.stringify(opened.body)).not.toContain('visitor 4711');
    expect(opened.body.hidden).toEqual(['client_ip_address', 'client_user_agent']);
    expect((opened.body.exchange as { sent: typeof sent }).sent.user_data).toEqual({
      em: ['a'.repeat(64)],
      client_ip_address: '(hidden)',
      client_user_agent: '(hidden)',
    });
  }

  // A member may not reveal them: 403, and nothing is noted.
  const refused = await call(s.reveal, { method: 'POST', token: member.token, query: row, body: {} });
  expect(refused.status).toBe(403);
  expect(JSON.stringify(refused.body)).not.toContain(ip);
  expect((await notes()).size).toBe(0);

  // An admin may: in clear, and the reveal is noted (who, which row and fields, when).
  const revealed = await call(s.reveal, { method: 'POST', token: admin.token, query: row, body: {} });
  expect(revealed.status).toBe(200);
  expect((revealed.body.exchange as { sent: unknown }).sent).toEqual(sent);
  expect(revealed.body.hidden).toEqual([]);
  const noted = (await notes()).docs.map((doc) => doc.data());
  expect(noted).toEqual([
    expect.objectContaining({
      action: 'delivery_row.reveal',
      by_uid: admin.uid,
      by_role: 'admin',
      conversion_id: setup.conversionId,
      delivery_id: row.deliveryId,
      event_id: 'visitor-1',
      fields: ['client_ip_address', 'client_user_agent'],
    }),
  ]);
  expect(Date.now() - (noted[0]!.at as { toMillis: () => number }).toMillis()).toBeLessThan(60_000);

  // Another organization's owner: 404 opening or revealing it, under our organization or theirs; nothing noted.
  const other = await setUpConversion('meta_ads');
  for (const query of [row, { ...row, orgId: other.orgId }]) {
    expect((await call(s.row, { token: other.owner.token, query })).status).toBe(404);
    const outsider = await call(s.reveal, { method: 'POST', token: other.owner.token, query, body: {} });
    expect(outsider.status).toBe(404);
    expect(JSON.stringify(outsider.body)).not.toContain(ip);
  }
  expect((await notes()).size).toBe(1);
});

test("an event the event-name filter left out is found: 'filtered out', with its name and the names taken", async () => {
  const event: ConversionEvent = {
    id: 'form-77',
    name: 'Form Submitted',
    time: Math.floor(Date.now() / 1000),
    value: null,
    currency: null,
    user: { email: 'a'.repeat(64) },
    clickIds: {},
    context: { actionSource: 'website' },
  };
  const delivered: string[] = [];
  const router = createConversionRouter({
    lingerMs: 10,
    deliver: async (_orgId, _conversion, batch) => {
      delivered.push(...batch.map((item) => item.id));
      return { rows: [], latencyMs: 0 };
    },
  });
  const [packed] = packEvents([event]);
  const settled = await new Promise<string>((resolve) =>
    router.handle({
      id: 'm-filtered',
      data: packed!.data,
      attributes: { org: setup.orgId, source: `app:${setup.appId}`, events: String(packed!.count) },
      ack: () => resolve('ack'),
      nack: () => resolve('nack'),
    }),
  );
  expect(settled).toBe('ack');
  expect(delivered).toEqual([]);
  const found = await call(s.deliveries, { token: setup.owner.token, query: { ...ids(), eventId: 'form-77' } });
  expect(found.body).toEqual({
    deliveries: [],
    filtered: { eventId: 'form-77', name: 'Form Submitted', wanted: ['Lead', 'Purchase'], at: expect.any(String) },
  });
  const unknown = await call(s.deliveries, { token: setup.owner.token, query: { ...ids(), eventId: 'never-seen' } });
  expect(unknown.body).toEqual({ deliveries: [] });
});

test('an event the worker cannot read is in the log as not sent, with the reason, for the conversion that takes it', async () => {
  const router = createConversionRouter({ lingerMs: 10, deliver: async () => ({ rows: [], latencyMs: 0 }) });
  // As an older version might have queued it: a time before 1970.
  const data = Buffer.from(JSON.stringify([{ id: 'old-9', name: 'Lead', time: -315_619_200, user: {}, clickIds: {}, context: {} }]));
  const settled = await new Promise<string>((resolve) =>
    router.handle({
      id: 'm-unreadable',
      data,
      attributes: { org: setup.orgId, source: `app:${setup.appId}`, events: '1' },
      ack: () => resolve('ack'),
      nack: () => resolve('nack'),
    }),
  );
  expect(settled).toBe('ack');
  await router.drain();
  const found = await call(s.deliveries, { token: setup.owner.token, query: { ...ids(), eventId: 'old-9' } });
  const rows = (found.body.deliveries as Array<{ rows: DeliveryRow[] }>).flatMap((record) => record.rows);
  expect(rows).toEqual([
    { id: 'old-9', status: 'not_sent', reason: expect.stringMatching(/^Not sent: the event cannot be delivered as queued/) },
  ]);
});

test("another organization's member gets 404 opening a row, and finds no filtered event", async () => {
  const record = await latestRecord();
  const other = await setUpConversion('meta_ads');
  const row = { ...ids(), deliveryId: record.id, eventId: record.rows[0]!.id };
  expect((await call(s.row, { token: other.owner.token, query: row })).status).toBe(404);
  expect((await call(s.row, { token: other.owner.token, query: { ...row, orgId: other.orgId } })).status).toBe(404);
  expect((await call(s.row, { token: other.owner.token, query: { ...row, orgId: other.orgId, id: other.conversionId } })).status).toBe(404);
  expect((await call(s.deliveries, { token: other.owner.token, query: { ...ids(), eventId: 'form-77' } })).status).toBe(404);
  expect((await call(s.row, { token: setup.owner.token, query: { ...row, deliveryId: 'a/b' } })).status).toBe(400);
});
