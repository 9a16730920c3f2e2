import getOrSaveUser from '@/pages/api/getOrSaveUser';
import getUser from '@/pages/api/getUser';
import { adminAuth, adminDb } from '@/lib/server/firebaseAdmin';
import { createTestUser, signIn, type TestUser } from '@/tests/fixtures/firebase';
import { call, serveHandler, type TestServer } from '@/tests/api/helpers/server';

let saveServer: TestServer;
let getServer: TestServer;
let alice: TestUser;
let bob: TestUser;
let superAdmin: TestUser;

beforeAll(async () => {
  [saveServer, getServer] = await Promise.all([serveHandler(getOrSaveUser), serveHandler(getUser)]);
  [alice, bob, superAdmin] = await Promise.all([createTestUser(), createTestUser(), createTestUser({ superAdmin: true })]);
});
afterAll(() => Promise.all([saveServer.close(), getServer.close()]));

/** A user in Auth with no database record yet, as right after registration. */
async function newAuthUser() {
  const email = `new-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const { uid } = await adminAuth().createUser({ email, password: 'secret123' });
  return { uid, email, token: await signIn(email, 'secret123') };
}

const record = async (uid: string) => (await adminDb().collection('users').doc(uid).get()).data();

describe('POST /api/getOrSaveUser', () => {
  test('creates the database user once, then finds it', async () => {
    const user = await newAuthUser();
    const body = { email: user.email, fullName: 'New Person', uid: user.uid, photoURL: null };
    const first = await call(saveServer, { method: 'POST', token: user.token, body });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      success: true,
      user: { email: user.email, fullName: 'New Person', uid: user.uid, photoURL: '' },
      message: 'User created',
    });

    const again = await call(saveServer, { method: 'POST', token: user.token, body: { ...body, fullName: 'Changed' } });
    expect(again.body).toMatchObject({ success: true, message: 'User found', user: { fullName: 'New Person' } });
  });

  test("nobody creates another user's record → 403, nothing written", async () => {
    const victim = await newAuthUser();
    const response = await call(saveServer, {
      method: 'POST',
      token: alice.token,
      body: { email: victim.email, fullName: 'Evil', uid: victim.uid, photoURL: '' },
    });
    expect(response.status).toBe(403);
    expect(await record(victim.uid)).toBeUndefined();
  });

  test('an email other than the one the token proves → 403', async () => {
    const user = await newAuthUser();
    const response = await call(saveServer, {
      method: 'POST',
      token: user.token,
      body: { email: 'someone-else@example.test', fullName: '', uid: user.uid, photoURL: '' },
    });
    expect(response.status).toBe(403);
    expect(await record(user.uid)).toBeUndefined();
  });

  test('a malformed body → 400 with field errors, nothing written', async () => {
    const user = await newAuthUser();
    const response = await call(saveServer, { method: 'POST', token: user.token, body: { email: 'not-an-email', uid: '' } });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.fieldErrors as object).sort()).toEqual(['email', 'uid']);
    expect(await record(user.uid)).toBeUndefined();
  });

  test('no token or a bad one → 401', async () => {
    const body = { email: alice.email, fullName: '', uid: alice.uid, photoURL: '' };
    expect((await call(saveServer, { method: 'POST', body })).status).toBe(401);
    expect((await call(saveServer, { method: 'POST', body, token: 'garbage' })).status).toBe(401);
  });
});

describe('POST /api/getUser', () => {
  test('a user reads their own record, with role and photoURL', async () => {
    const response = await call(getServer, { method: 'POST', token: alice.token, body: { userId: alice.uid } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      user: { email: alice.email, fullName: 'Test User', uid: alice.uid, photoURL: '' },
      message: 'User found',
    });
  });

  test("another user's record → 403", async () => {
    const response = await call(getServer, { method: 'POST', token: bob.token, body: { userId: alice.uid } });
    expect(response.status).toBe(403);
    expect(response.body).not.toHaveProperty('user');
  });

  test('a super admin reads anyone, and sees their own role', async () => {
    expect((await call(getServer, { method: 'POST', token: superAdmin.token, body: { userId: alice.uid } })).status).toBe(200);
    const own = await call(getServer, { method: 'POST', token: superAdmin.token, body: { userId: superAdmin.uid } });
    expect(own.body.user).toMatchObject({ role: 'super_admin' });
  });

  test('a missing userId → 400', async () => {
    expect((await call(getServer, { method: 'POST', token: alice.token, body: {} })).status).toBe(400);
  });
});
