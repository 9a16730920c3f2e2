import { NextRequest } from 'next/server';
// middleware.ts sits at the root, where no path alias reaches.
import { middleware } from '../../middleware';
import { adminAuth } from '@/lib/server/firebaseAdmin';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';

const ORIGIN = 'http://localhost:3000';
let user: TestUser;
let session: string;
let orgId: string;

beforeAll(async () => {
  user = await createTestUser();
  session = await adminAuth().createSessionCookie(user.token, { expiresIn: 60 * 60 * 1000 });
  orgId = await createTestOrganization([[user, 'owner']]);
});

/** A full page load of `path` (already percent-encoded) by a browser with the given cookies. */
function pageLoad(path: string, cookies: Record<string, string> = {}) {
  const cookie = Object.entries(cookies)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
  return middleware(new NextRequest(`${ORIGIN}${path}`, { headers: cookie ? { cookie } : {} }));
}

const signedIn = (path: string, cookies: Record<string, string> = {}) => pageLoad(path, { __session: session, ...cookies });

describe('after sign-in the saved callback never leaves this origin', () => {
  test.each([
    '%2F.%2F%2Fevil.example%2F',
    '%2F%252e%2F%2Fevil.example%2F',
    '%2Fx%2F..%2F%2Fevil.example%2F',
    '%2F%5C%2Fevil.example',
    '%2F%09%2Fevil.example',
    '%2F%2Fevil.example',
    'https%3A%2F%2Fevil.example',
  ])('/login?callback=%s', async (callback) => {
    const response = await signedIn(`/login?callback=${callback}`);
    expect(response.status).toBe(307);
    expect(new URL(response.headers.get('location')!).origin).toBe(ORIGIN);
    expect(response.headers.get('location')).toBe(`${ORIGIN}/organizations`);
  });

  test.each(['/.//evil.example/', '/%2e//evil.example/', '/x/..//evil.example/'])('callbackUrl cookie %s', async (cookie) => {
    const response = await signedIn('/login', { callbackUrl: encodeURIComponent(cookie) });
    expect(response.headers.get('location')).toBe(`${ORIGIN}/organizations`);
  });

  test('a callback on this site is still followed', async () => {
    const response = await signedIn(`/login?callback=${encodeURIComponent(`/${orgId}/settings?tab=team`)}`);
    expect(response.headers.get('location')).toBe(`${ORIGIN}/${orgId}/settings?tab=team`);
  });
});

describe('a malformed organization id in a page path', () => {
  test('bad %-encoding sends a signed-in user to their organizations, never a 500', async () => {
    const response = await signedIn('/%E0%A4%A/settings');
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe(`${ORIGIN}/organizations`);
  });

  test.each(['/__x__/settings', '/%5F%5Fx%5F%5F/connection', '/a%2Fb/source'])(
    '%s is treated like a missing organization',
    async (path) => {
      const response = await signedIn(path);
      expect(response.headers.get('location')).toBe(`${ORIGIN}/organizations`);
    },
  );

  test('signed out, it goes to sign-in like any organization page', async () => {
    const response = await pageLoad('/%E0%A4%A/settings');
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe(`${ORIGIN}/login?callback=%2F%25E0%25A4%25A%2Fsettings`);
  });

  test('a member still enters their own organization', async () => {
    const response = await signedIn(`/${orgId}/settings`);
    expect(response.headers.get('location')).toBeNull();
  });
});
