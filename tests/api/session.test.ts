import { request as httpRequest } from 'node:http';
import session from '@/pages/api/session';
import getUser from '@/pages/api/getUser';
import { adminAuth } from '@/lib/server/firebaseAdmin';
import { createTestUser, signIn, type TestUser } from '@/tests/fixtures/firebase';
import { call, serveHandler, type TestServer } from '@/tests/api/helpers/server';

let sessionServer: TestServer;
let userServer: TestServer;
let alice: TestUser;

beforeAll(async () => {
  [sessionServer, userServer] = await Promise.all([serveHandler(session), serveHandler(getUser)]);
  alice = await createTestUser();
});
afterAll(() => Promise.all([sessionServer.close(), userServer.close()]));

/** The session cookie's value from a Set-Cookie header. */
function sessionFrom(setCookie: string | null): string {
  return setCookie!.split(';')[0]!.slice('__session='.length);
}

/** An unsigned token (the emulator accepts them) issued `ageSeconds` ago. */
function tokenIssuedAgo(uid: string, ageSeconds: number): string {
  const now = Math.floor(Date.now() / 1000);
  const project = process.env.FIREBASE_PROJECT_ID ?? 'demo-signalbridge';
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = {
    iss: `https://securetoken.google.com/${project}`,
    aud: project,
    auth_time: now - ageSeconds,
    user_id: uid,
    sub: uid,
    iat: now - ageSeconds,
    exp: now - ageSeconds + 3600,
    firebase: { identities: {}, sign_in_provider: 'password' },
  };
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}

test('a fresh ID token becomes an httpOnly, SameSite=Lax session cookie that authenticates API calls', async () => {
  const response = await call(sessionServer, { method: 'POST', token: alice.token });
  expect(response.status).toBe(200);
  const setCookie = response.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/^__session=[^;]+; Path=\/; Max-Age=432000; HttpOnly; SameSite=Lax$/);

  const me = await call(userServer, { method: 'POST', body: { userId: alice.uid }, session: sessionFrom(setCookie) });
  expect(me.status).toBe(200);
});

test('outside localhost the cookie is Secure', async () => {
  // fetch cannot set Host, so this one request goes through node:http.
  const setCookie = await new Promise<string>((resolve, reject) => {
    const request = httpRequest(sessionServer.url, {
      method: 'POST',
      headers: { Host: 'app.signalbridge.example', Authorization: `Bearer ${alice.token}` },
    });
    request.on('response', (response) => {
      response.resume();
      resolve(String(response.headers['set-cookie']));
    });
    request.on('error', reject);
    request.end();
  });
  expect(setCookie).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
});

test('an ID token older than 5 minutes is not exchanged', async () => {
  const response = await call(sessionServer, { method: 'POST', token: tokenIssuedAgo(alice.uid, 6 * 60) });
  expect(response.status).toBe(401);
  expect(response.headers.get('set-cookie')).toBeNull();
});

test('no bearer token → 401; DELETE clears the cookie', async () => {
  expect((await call(sessionServer, { method: 'POST' })).status).toBe(401);
  const cleared = await call(sessionServer, { method: 'DELETE' });
  expect(cleared.status).toBe(200);
  expect(cleared.headers.get('set-cookie')).toMatch(/^__session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/);
});

test('a revoked session is rejected', async () => {
  const user = await createTestUser();
  const response = await call(sessionServer, { method: 'POST', token: user.token });
  const cookie = sessionFrom(response.headers.get('set-cookie'));
  await new Promise((resolve) => setTimeout(resolve, 1100)); // revocation has one-second resolution
  await adminAuth().revokeRefreshTokens(user.uid);
  const me = await call(userServer, { method: 'POST', body: { userId: user.uid }, session: cookie });
  expect(me.status).toBe(401);
  // and a new sign-in works again
  const token = await signIn(user.email, user.password);
  expect((await call(sessionServer, { method: 'POST', token })).status).toBe(200);
});
