import { z } from 'zod';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { call, serveHandler, type TestServer } from '@/tests/api/helpers/server';

// A handler in the shape every product endpoint has: members read, only admins write.
const notes = (orgId: string) => adminDb().collection('organizations').doc(orgId).collection('notes');
const handler = createHandler({
  GET: route({
    access: 'orgMember',
    query: z.object({ orgId: z.string() }),
    permission: ['organization', 'read'],
    handle: ({ org }) => ({ role: org.role }),
  }),
  POST: route({
    access: 'orgMember',
    body: z.object({ orgId: z.string(), text: z.string().min(1, 'Write something') }),
    orgId: ({ body }) => body.orgId,
    permission: ['organization', 'update'],
    async handle({ org, body }) {
      await notes(org.id).add({ text: body.text });
      return { saved: true };
    },
  }),
  DELETE: route({
    access: 'signedIn',
    handle: () => {
      throw new Error('database password is hunter2');
    },
  }),
});

let server: TestServer;
/** The same handler mounted as Next mounts a route file: `[orgId]` is a route segment. */
let routed: TestServer;
let owner: TestUser;
let member: TestUser;
let outsider: TestUser;
let superAdmin: TestUser;
let orgId: string;

beforeAll(async () => {
  server = await serveHandler(handler);
  routed = await serveHandler(handler, undefined, '/api/orgs/[orgId]/notes');
  [owner, member, outsider, superAdmin] = await Promise.all([
    createTestUser(),
    createTestUser(),
    createTestUser(),
    createTestUser({ superAdmin: true }),
  ]);
  orgId = await createTestOrganization([
    [owner, 'owner'],
    [member, 'member'],
  ]);
  // The outsider owns an organization of their own, which gives them nothing here.
  await createTestOrganization([[outsider, 'owner']]);
});
afterAll(() => Promise.all([server.close(), routed.close()]));

/** An answer as any caller would compare it: each carries its own request id. */
const sansRequestId = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });

const noteCount = async () => (await notes(orgId).get()).size;

describe('authentication', () => {
  test('no token → 401', async () => {
    const response = await call(server, { query: { orgId } });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ success: false, code: 'unauthenticated' });
  });

  test('a forged token → 401 and nothing written', async () => {
    const response = await call(server, { method: 'POST', token: 'not-a-token', body: { orgId, text: 'hi' } });
    expect(response.status).toBe(401);
    expect(await noteCount()).toBe(0);
  });
});

describe('tenant × role matrix', () => {
  test('outsider → 404, the same answer as for an organization that does not exist', async () => {
    const outsiderAnswer = await call(server, { query: { orgId }, token: outsider.token });
    const missingAnswer = await call(server, { query: { orgId: 'no-such-org' }, token: outsider.token });
    expect(outsiderAnswer.status).toBe(404);
    expect(sansRequestId(outsiderAnswer.body)).toEqual(sansRequestId(missingAnswer.body));
  });

  test("every error envelope carries its request's id, the one the logs file it under", async () => {
    const response = await call(server, { query: { orgId }, token: outsider.token });
    expect(response.body.requestId).toMatch(/^[\da-f-]{36}$/);
    expect(response.headers.get('x-request-id')).toBe(response.body.requestId);
  });

  test.each(['__x__', '__proto__', 'a%2Fb', '%5F%5Fx%5F%5F'])(
    'an [orgId] route segment that is no id (%s) → the same 404 as a missing organization, never a 500',
    async (segment) => {
      const missing = await call(routed, { path: '/api/orgs/no-such-org/notes', token: owner.token });
      const response = await call(routed, { path: `/api/orgs/${segment}/notes`, token: owner.token });
      expect(response.status).toBe(404);
      expect(sansRequestId(response.body)).toEqual(sansRequestId(missing.body));
    },
  );

  test('outsider cannot write either', async () => {
    const response = await call(server, { method: 'POST', token: outsider.token, body: { orgId, text: 'x' } });
    expect(response.status).toBe(404);
    expect(await noteCount()).toBe(0);
  });

  test('member reads, but an admin action → 403 and nothing written', async () => {
    expect((await call(server, { query: { orgId }, token: member.token })).body).toEqual({ role: 'member' });
    const response = await call(server, { method: 'POST', token: member.token, body: { orgId, text: 'x' } });
    expect(response.status).toBe(403);
    expect(await noteCount()).toBe(0);
  });

  test('owner may write', async () => {
    const response = await call(server, { method: 'POST', token: owner.token, body: { orgId, text: 'from owner' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ saved: true });
  });

  test('super admin may act in an organization they are not a member of', async () => {
    expect((await call(server, { query: { orgId }, token: superAdmin.token })).body).toEqual({ role: 'super_admin' });
  });
});

describe('validation and errors', () => {
  test('a malformed body → 400 with field errors, nothing written', async () => {
    const before = await noteCount();
    const response = await call(server, { method: 'POST', token: owner.token, body: { orgId, text: '' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, code: 'invalid_request', fieldErrors: { text: ['Write something'] } });
    expect(await noteCount()).toBe(before);
  });

  test('broken JSON → 400', async () => {
    const response = await call(server, { method: 'POST', token: owner.token, body: '{"orgId":' });
    expect(response.status).toBe(400);
  });

  test('an unexpected failure → 500 with a request id, never the internals', async () => {
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await call(server, { method: 'DELETE', token: member.token });
    spy.mockRestore();
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      success: false,
      code: 'internal',
      message: 'An unexpected error occurred',
      requestId: response.headers.get('x-request-id'),
    });
    expect(JSON.stringify(response.body)).not.toContain('hunter2');
  });

  test('an unknown method → 405 with Allow', async () => {
    const response = await call(server, { method: 'PUT', token: owner.token, body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
  });
});

describe('a read preloaded beside the membership check', () => {
  // Reads the notes while membership is checked; `?fail` makes that read fail as a missing document would,
  // `now` before it returns a promise, `later` in it.
  const preloading = createHandler({
    GET: route({
      access: 'orgMember',
      query: z.object({ orgId: z.string(), fail: z.enum(['now', 'later']).optional() }),
      permission: ['organization', 'read'],
      preload: ({ orgId, query }) => {
        const missing = () => new ApiError(404, 'not_found', 'Note not found.');
        if (query.fail === 'now') throw missing();
        if (query.fail === 'later') return Promise.reject(missing());
        return notes(orgId)
          .get()
          .then((snapshot) => snapshot.docs.map((doc) => doc.get('text')));
      },
      handle: ({ preloaded }) => ({ notes: preloaded }),
    }),
  });
  let preloaded: TestServer;
  beforeAll(async () => {
    preloaded = await serveHandler(preloading);
    await notes(orgId).add({ text: 'for members only' });
  });
  afterAll(() => preloaded.close());

  test('a member gets what was read', async () => {
    const response = await call(preloaded, { query: { orgId }, token: member.token });
    expect(response.status).toBe(200);
    expect(response.body.notes).toContain('for members only');
  });

  test('an outsider gets the 404 of a missing organization, not the read, nor the read’s own error', async () => {
    for (const query of [{ orgId }, { orgId, fail: 'now' }, { orgId, fail: 'later' }] as Array<Record<string, string>>) {
      const response = await call(preloaded, { query, token: outsider.token });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ success: false, code: 'not_found', message: 'Organization not found.' });
      expect(JSON.stringify(response.body)).not.toContain('for members only');
    }
  });

  test('a member meets the read’s error', async () => {
    for (const fail of ['now', 'later']) {
      const response = await call(preloaded, { query: { orgId, fail }, token: member.token });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ success: false, code: 'not_found', message: 'Note not found.' });
    }
  });
});
