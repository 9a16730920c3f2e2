import createOrganization from '@/pages/api/createOrganization';
import getOrganizationIds from '@/pages/api/getOrganizationIds';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { call, serveHandler, type TestServer } from '@/tests/api/helpers/server';

let createServer: TestServer;
let listServer: TestServer;
let alice: TestUser;
let bob: TestUser;
let superAdmin: TestUser;

beforeAll(async () => {
  [createServer, listServer] = await Promise.all([serveHandler(createOrganization), serveHandler(getOrganizationIds)]);
  [alice, bob, superAdmin] = await Promise.all([createTestUser(), createTestUser(), createTestUser({ superAdmin: true })]);
});
afterAll(() => Promise.all([createServer.close(), listServer.close()]));

const list = (user: TestUser, query: Record<string, string> = {}) =>
  call(listServer, { token: user.token, query: { userId: user.uid, ...query } });

describe('POST /api/createOrganization', () => {
  test('creates the organization with the caller as owner, and lists it for them only', async () => {
    const response = await call(createServer, {
      method: 'POST',
      token: alice.token,
      body: { companyName: '  Acme Rockets ', userId: alice.uid, isDefault: true },
    });
    expect(response.status).toBe(200);
    const orgId = response.body.organizationId as string;
    const member = await adminDb().doc(`organizations/${orgId}/members/${alice.uid}`).get();
    expect(member.get('role')).toBe('owner');

    expect((await list(alice)).body.organizations).toContainEqual({
      organization_id: orgId,
      company_name: 'Acme Rockets',
      company_logo: null,
      connections_count: 0,
    });
    expect((await list(bob)).body.organizations).toEqual([]);
  });

  test('an organization for someone else → 403, nothing created', async () => {
    const before = (await adminDb().collection('organizations').where('created_by', '==', bob.uid).get()).size;
    const response = await call(createServer, {
      method: 'POST',
      token: alice.token,
      body: { companyName: 'Hijack', userId: bob.uid, isDefault: true },
    });
    expect(response.status).toBe(403);
    expect((await adminDb().collection('organizations').where('created_by', '==', bob.uid).get()).size).toBe(before);
  });

  test.each([
    [{ companyName: '', isDefault: true }, 'companyName'],
    [{ companyName: 'Logo', isDefault: true, company_logo: 'data:image/svg+xml;base64,PHN2Zz4=' }, 'company_logo'],
    [{ companyName: 'Logo', isDefault: true, company_logo: 'javascript:alert(1)' }, 'company_logo'],
    [{ companyName: 'Logo', isDefault: 'yes' }, 'isDefault'],
  ])('bad input %j → 400 on %s', async (body, field) => {
    const response = await call(createServer, { method: 'POST', token: alice.token, body: { userId: alice.uid, ...body } });
    expect(response.status).toBe(400);
    expect(response.body.fieldErrors).toHaveProperty(field);
  });

  test('a PNG logo within 256 kB is kept', async () => {
    const logo = `data:image/png;base64,${Buffer.from('png-bytes').toString('base64')}`;
    const response = await call(createServer, {
      method: 'POST',
      token: alice.token,
      body: { companyName: 'With Logo', userId: alice.uid, isDefault: true, company_logo: logo },
    });
    expect(response.status).toBe(200);
    const org = await adminDb().doc(`organizations/${response.body.organizationId}`).get();
    expect(org.get('company_logo')).toBe(logo);
  });

  test('no token → 401, nothing created', async () => {
    const response = await call(createServer, { method: 'POST', body: { companyName: 'X', userId: alice.uid, isDefault: true } });
    expect(response.status).toBe(401);
  });
});

describe('GET /api/getOrganizationIds', () => {
  test("another user's organizations → 403", async () => {
    const response = await call(listServer, { token: bob.token, query: { userId: alice.uid } });
    expect(response.status).toBe(403);
  });

  test('superadmin=true from someone who is not one lists only their own', async () => {
    const orgId = await createTestOrganization([[bob, 'member']]);
    const response = await list(bob, { superadmin: 'true' });
    expect((response.body.organizations as Array<{ organization_id: string }>).map((o) => o.organization_id)).toEqual([orgId]);
  });

  test('a super admin pages through every organization and searches by name', async () => {
    const prefix = `zz-paging-${Date.now()}`;
    const names = Array.from({ length: 55 }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name) => createTestOrganization([[bob, 'owner']], { company_name: name })));

    const first = await list(superAdmin, { superadmin: 'true', search: prefix });
    expect(first.status).toBe(200);
    const firstNames = (first.body.organizations as Array<{ company_name: string }>).map((o) => o.company_name);
    expect(firstNames).toEqual(names.slice(0, 50));
    expect(first.body.nextCursor).toEqual(expect.any(String));

    const second = await list(superAdmin, { superadmin: 'true', search: prefix, cursor: first.body.nextCursor as string });
    expect((second.body.organizations as Array<{ company_name: string }>).map((o) => o.company_name)).toEqual(names.slice(50));
    expect(second.body.nextCursor).toBeNull();
  });

  test('a crafted cursor naming no document is ignored: the first page, never a 500', async () => {
    for (const id of ['a/b', '__x__', '..']) {
      const cursor = Buffer.from(JSON.stringify(['zz', id])).toString('base64url');
      const response = await list(superAdmin, { superadmin: 'true', cursor });
      expect(response.status).toBe(200);
      expect(response.body.organizations).toEqual(expect.any(Array));
    }
  });
});
