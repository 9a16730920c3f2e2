import { randomUUID } from 'node:crypto';
import healthHandler from '@/pages/api/admin/health';
import orgDeadLettersHandler from '@/pages/api/orgs/[orgId]/dead-letters';
import adminDeadLettersHandler from '@/pages/api/admin/dead-letters';
import { drainDeadLetters, replayDeadLetters } from '@/lib/server/queue/deadLetters';
import { ensureTopology, pubsub, TOPICS } from '@/lib/server/queue/pubsub';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { tapTopic } from '@/tests/api/helpers/queue';
import { call, serveHandler, type TestServer } from '@/tests/api/helpers/server';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';

// Dead letters against the Pub/Sub emulator: messages published to the dead-letter topics (what Pub/Sub
// does after 20 attempts) are read into Firestore, counted per organization and in total, and replayed.
jest.setTimeout(60_000);

let health: TestServer;
let perOrg: TestServer;
let admin: TestServer;
let owner: TestUser;
let outsider: TestUser;
let superAdmin: TestUser;
let orgA: string;
let orgB: string;

beforeAll(async () => {
  [health, perOrg, admin] = await Promise.all([
    serveHandler(healthHandler),
    serveHandler(orgDeadLettersHandler, undefined, '/api/orgs/[orgId]/dead-letters'),
    serveHandler(adminDeadLettersHandler),
  ]);
  [owner, outsider, superAdmin] = await Promise.all([createTestUser(), createTestUser(), createTestUser({ superAdmin: true })]);
  orgA = await createTestOrganization([[owner, 'owner']]);
  orgB = await createTestOrganization([[outsider, 'owner']]);
  await ensureTopology();
});
afterAll(() => Promise.all([health.close(), perOrg.close(), admin.close()]));

const countsOf = async (orgId: string, token: string) => call(perOrg, { path: `/api/orgs/${orgId}/dead-letters`, token });

test('dead letters are counted per organization and in total, in /api/admin/health, and replayed to their original topics', async () => {
  const client = pubsub();
  const events = (prefix: string, count: number) =>
    Buffer.from(JSON.stringify(Array.from({ length: count }, (_, index) => ({ id: `${prefix}-${index}`, name: 'Lead', time: 1 }))));
  // What Pub/Sub forwards after 20 attempts: the message as published, with its dead-letter attributes.
  const deadAttributes = { CloudPubSubDeadLetterSourceDeliveryCount: '20' };
  await client
    .topic(TOPICS.conversionsDead)
    .publishMessage({ data: events('a', 3), attributes: { org: orgA, source: 'app:app-1', events: '3', ...deadAttributes } });
  await client
    .topic(TOPICS.conversionsDead)
    .publishMessage({ data: events('b', 2), attributes: { org: orgB, source: 'app:app-2', events: '2', ...deadAttributes } });
  const job = { org: orgA, connection: 'conn-1', run: 'run-1', job: 'job-1' };
  await client.topic(TOPICS.syncDead).publishMessage({ json: job, attributes: { org: orgA, queue: 'backfill', ...deadAttributes } });

  // Before the reader runs nothing is counted; after, each organization sees its own.
  expect((await countsOf(orgA, owner.token)).body.deadLetters).toEqual({
    conversions: { messages: 0, events: 0 },
    sync: { messages: 0, events: 0 },
  });
  expect(await drainDeadLetters()).toBeGreaterThanOrEqual(3);
  expect(await drainDeadLetters()).toBe(0);
  const a = await countsOf(orgA, owner.token);
  expect(a.status).toBe(200);
  expect(a.body.deadLetters).toEqual({ conversions: { messages: 1, events: 3 }, sync: { messages: 1, events: 1 } });
  expect((await countsOf(orgB, outsider.token)).body.deadLetters).toEqual({
    conversions: { messages: 1, events: 2 },
    sync: { messages: 0, events: 0 },
  });

  // The total, for super admins only, and in their health detail.
  const total = await call(admin, { token: superAdmin.token });
  expect(total.status).toBe(200);
  expect(total.body.complete).toBe(true);
  const byOrganization = total.body.byOrganization as Array<{ org: string | null; messages: number; events: number }>;
  expect(byOrganization).toEqual(
    expect.arrayContaining([
      { org: orgA, messages: 2, events: 4 },
      { org: orgB, messages: 1, events: 2 },
    ]),
  );
  expect((total.body.total as { conversions: { messages: number } }).conversions.messages).toBeGreaterThanOrEqual(2);
  const status = await call(health, { token: superAdmin.token });
  expect(status.status).toBe(200);
  const reported = status.body.deadLetters as { conversions: number; sync: number };
  expect(reported.conversions).toBeGreaterThanOrEqual(2);
  expect(reported.sync).toBeGreaterThanOrEqual(1);

  // Replay for one organization: back to conversion-events and sync-backfill-jobs, without Pub/Sub's attributes.
  const conversions = await tapTopic(TOPICS.conversions);
  const backfills = await tapTopic(TOPICS.backfillJobs);
  try {
    expect(await replayDeadLetters({ orgId: orgA })).toEqual({ messages: 2, events: 4 });
    const replayedEvents = (await conversions.read()).filter((message) => message.attributes.org === orgA);
    expect(replayedEvents).toEqual([
      { data: events('a', 3).toString('utf8'), attributes: { org: orgA, source: 'app:app-1', events: '3' } },
    ]);
    const replayedJobs = (await backfills.read()).filter((message) => message.attributes.org === orgA);
    expect(replayedJobs.map((message) => JSON.parse(message.data))).toEqual([job]);
  } finally {
    await Promise.all([conversions.close(), backfills.close()]);
  }
  expect((await countsOf(orgA, owner.token)).body.deadLetters).toEqual({
    conversions: { messages: 0, events: 0 },
    sync: { messages: 0, events: 0 },
  });
  expect(((await countsOf(orgB, outsider.token)).body.deadLetters as { conversions: { messages: number } }).conversions.messages).toBe(1);
  await replayDeadLetters({ orgId: orgB });
});

test('a dead letter is acknowledged only once its copy is stored', async () => {
  const client = pubsub();
  const orgId = `org-${randomUUID()}`;
  await client
    .topic(TOPICS.conversionsDead)
    .publishMessage({ data: Buffer.from('[]'), attributes: { org: orgId, source: 'app:x', events: '1' } });
  // Firestore refuses the write (the emulator is told to fail): the message stays in the subscription.
  const original = adminDb().collection.bind(adminDb());
  const spy = jest.spyOn(adminDb(), 'collection').mockImplementation((path: string) => {
    if (path === 'dead_letters') throw new Error('Firestore is down');
    return original(path);
  });
  await expect(drainDeadLetters()).rejects.toThrow('Firestore is down');
  spy.mockRestore();
  await new Promise((resolve) => setTimeout(resolve, 11_000)); // the emulator's ack deadline (10 s) runs out
  expect(await drainDeadLetters()).toBeGreaterThanOrEqual(1);
  const snapshot = await adminDb().collection('dead_letters').where('org', '==', orgId).get();
  expect(snapshot.size).toBe(1);
  await replayDeadLetters({ orgId });
});

test('an outsider gets 404 for another organization, a member or owner of no platform role 403 for the total', async () => {
  const refused = await countsOf(orgA, outsider.token);
  expect(refused.status).toBe(404);
  expect(refused.body).not.toHaveProperty('deadLetters');
  expect((await call(admin, { token: owner.token })).status).toBe(403);
  expect((await call(admin)).status).toBe(401);
});
