import { randomUUID } from 'node:crypto';
import handler from '@/pages/api/health';
import readyHandler from '@/pages/api/health/ready';
import adminHealthHandler from '@/pages/api/admin/health';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { ensureTopology } from '@/lib/server/queue/pubsub';
import { countDeadLetters, deadLettersByOrganization, deleteDeadLetters, saveDeadLetters } from '@/lib/server/repos/deadLetters';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { createTestUser } from '@/tests/fixtures/firebase';

let s: Record<'health' | 'ready' | 'admin', TestServer>;
beforeAll(async () => {
  s = await serveHandlers({ health: handler, ready: readyHandler, admin: adminHealthHandler });
  // A process's first Firestore read loads gRPC (seconds on a busy machine): not the 3 s the probe allows.
  await adminDb().collection('health').doc('probe').get();
  // The topics exist, as cloud:setup leaves them in a real project (and loading Pub/Sub's client, too, takes seconds).
  await ensureTopology();
});
afterAll(() => closeAll(s));

test('liveness says the process answers, and nothing else: no services, no dead letters, no organization', async () => {
  const response = await call(s.health);
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ status: 'ok' });
});

test('readiness says whether Firestore and Pub/Sub answer, without naming either', async () => {
  const response = await call(s.ready);
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ status: 'ready' });
});

test('refuses other methods with 405 and says which one to use', async () => {
  const response = await call(s.health, { method: 'POST', body: {} });
  expect(response.status).toBe(405);
  expect(response.headers.get('allow')).toBe('GET');
});

test('the detail (services, dead letters waiting) is for super admins only: 401 signed out, 403 for anyone else', async () => {
  const [superAdmin, someone] = await Promise.all([createTestUser({ superAdmin: true }), createTestUser()]);
  expect((await call(s.admin)).status).toBe(401);
  const refused = await call(s.admin, { token: someone.token });
  expect(refused.status).toBe(403);
  expect(refused.body).not.toHaveProperty('deadLetters');
  const detail = await call(s.admin, { token: superAdmin.token });
  expect(detail.status).toBe(200);
  expect(detail.body).toEqual({
    status: 'ok',
    services: { auth: true, firestore: true, pubsub: true },
    deadLetters: { conversions: expect.any(Number), sync: expect.any(Number), countedUpTo: 10_000 },
  });
});

test('the dead-letter counts behind the detail are bounded: they stop at the cap and say when more wait', async () => {
  const org = `org-${randomUUID()}`;
  const letters = ['a', 'b', 'c'].map((id) => ({
    queue: 'conversions' as const,
    messageId: `${org}-${id}`,
    org,
    topic: 'conversion-events',
    data: Buffer.from('[]'),
    attributes: {},
    events: 2,
  }));
  await saveDeadLetters(letters);
  try {
    expect((await countDeadLetters(org, 2)).conversions.messages).toBe(2);
    expect((await countDeadLetters(org)).conversions.messages).toBe(3);
    const capped = await deadLettersByOrganization(1);
    expect(capped.complete).toBe(false);
    expect(capped.byOrganization.reduce((sum, row) => sum + row.messages, 0)).toBe(1);
    const all = await deadLettersByOrganization(Number.POSITIVE_INFINITY);
    expect(all.complete).toBe(true);
    expect(all.byOrganization).toContainEqual({ org, messages: 3, events: 6 });
  } finally {
    await deleteDeadLetters(letters);
  }
});
