import createOrganization from '@/pages/api/createOrganization';
import getOrganizationData from '@/pages/api/getOrganizationData';
import sendInvitation from '@/pages/api/sendInvitation';
import submissions from '@/pages/api/submissions';
import { adminAuth, adminDb } from '@/lib/server/firebaseAdmin';
import { createApp, rotateSubmissionKey } from '@/lib/server/repos/apps';
import type { FakeCustomerIo } from '@/sandbox/customerio';
import { createTestOrganization, createTestUser, uniqueEmail, type TestUser } from '@/tests/fixtures/firebase';
import { serveWithCustomerIo, stopServed } from '@/tests/api/helpers/customerIo';
import { call, type TestServer } from '@/tests/api/helpers/server';

const handlers = { createOrganization, getOrganizationData, sendInvitation, submissions };
let servers: Record<keyof typeof handlers, TestServer>;
let fake: FakeCustomerIo;
let owner: TestUser;
let session: string;
let orgId: string;

const EVIL = 'http://evil.example';
const APP_ORIGIN = 'http://app.test';

beforeAll(async () => {
  ({ servers, fake } = await serveWithCustomerIo(handlers, { APP_URL: APP_ORIGIN }));
  owner = await createTestUser();
  session = await adminAuth().createSessionCookie(owner.token, { expiresIn: 60 * 60 * 1000 });
  orgId = await createTestOrganization([[owner, 'owner']]);
});
afterAll(() => stopServed({ servers, fake }));

const freshEmail = () => uniqueEmail('csrf');
const invitation = (email: string) => ({
  email,
  organization_id: orgId,
  inviter_user_id: owner.uid,
  inviter_email: owner.email,
});
const formEncoded = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const invitationsTo = async (email: string) => (await adminDb().collection('invitations').where('email', '==', email).get()).size;
const organizationsNamed = async (name: string) => (await adminDb().collection('organizations').where('name', '==', name).get()).size;
const emailsTo = (email: string) => fake.messages.filter((message) => message.to === email).length;

/** A request that carries only the session cookie, as a browser sends it along with any site's form. */
const withCookie = (server: TestServer, headers: Record<string, string>, body: string) =>
  call(server, { method: 'POST', headers: { Cookie: `__session=${session}`, ...headers }, body });

describe('a cookie-authenticated state change from another site is refused', () => {
  test('a form POST to /api/sendInvitation from evil.example → 403, nothing written or sent', async () => {
    const email = freshEmail();
    const response = await withCookie(
      servers.sendInvitation,
      { Origin: EVIL, 'Content-Type': 'application/x-www-form-urlencoded' },
      formEncoded(invitation(email)),
    );
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ success: false, code: 'cross_site_request' });
    expect(response.body.message).toMatch(/did not come from SignalBridge/);
    expect(await invitationsTo(email)).toBe(0);
    expect(emailsTo(email)).toBe(0);
  });

  test('a form POST to /api/createOrganization from evil.example → 403, no organization', async () => {
    const name = `Evil ${Date.now()}`;
    const response = await withCookie(
      servers.createOrganization,
      { Origin: EVIL, 'Content-Type': 'application/x-www-form-urlencoded' },
      formEncoded({ companyName: name, userId: owner.uid }),
    );
    expect(response.status).toBe(403);
    expect(await organizationsNamed(name)).toBe(0);
  });

  test.each([
    ['a JSON body from another origin', { Origin: EVIL }],
    ['Origin: null (a sandboxed frame)', { Origin: 'null' }],
    ['our host on another port', { Origin: 'http://127.0.0.1:1' }],
    ['no Origin and a cross-site fetch', { 'Sec-Fetch-Site': 'cross-site' }],
    ['no Origin and a same-site (sibling subdomain) fetch', { 'Sec-Fetch-Site': 'same-site' }],
    ['no Origin and no Sec-Fetch-Site', {}],
  ])('%s → 403', async (_, headers) => {
    const email = freshEmail();
    const response = await withCookie(
      servers.sendInvitation,
      { 'Content-Type': 'application/json', ...headers },
      JSON.stringify(invitation(email)),
    );
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('cross_site_request');
    expect(await invitationsTo(email)).toBe(0);
  });

  test.each([
    ['form-encoded', 'application/x-www-form-urlencoded'],
    ['text/plain (JSON text a form can send)', 'text/plain'],
    ['multipart', 'multipart/form-data; boundary=x'],
  ])('a %s body from our own origin → 403 asking for JSON', async (_, contentType) => {
    const email = freshEmail();
    const body = contentType.startsWith('multipart')
      ? '--x--'
      : contentType === 'text/plain'
        ? JSON.stringify(invitation(email))
        : formEncoded(invitation(email));
    const response = await withCookie(servers.sendInvitation, { Origin: servers.sendInvitation.url, 'Content-Type': contentType }, body);
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      code: 'json_required',
      message: 'Send the request body as JSON (Content-Type: application/json).',
    });
    expect(await invitationsTo(email)).toBe(0);
  });
});

describe('what still works', () => {
  test('our own page: the cookie with our Origin and a JSON body', async () => {
    const name = `Ours ${Date.now()}`;
    const response = await call(servers.createOrganization, { method: 'POST', session, body: { companyName: name, userId: owner.uid } });
    expect(response.status).toBe(200);
    expect(await organizationsNamed(name)).toBe(1);
  });

  test('no Origin, but the browser says Sec-Fetch-Site: same-origin', async () => {
    const email = freshEmail();
    const response = await withCookie(
      servers.sendInvitation,
      { 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' },
      JSON.stringify(invitation(email)),
    );
    expect(response.status).toBe(200);
    expect(await invitationsTo(email)).toBe(1);
  });

  test('the origin APP_URL names (the app behind a proxy that changes Host)', async () => {
    const email = freshEmail();
    const response = await withCookie(
      servers.sendInvitation,
      { Origin: APP_ORIGIN, 'Content-Type': 'application/json' },
      JSON.stringify(invitation(email)),
    );
    expect(response.status).toBe(200);
  });

  test('a bearer token is no ambient credential: any origin may use it', async () => {
    const email = freshEmail();
    const response = await call(servers.sendInvitation, {
      method: 'POST',
      token: owner.token,
      headers: { Origin: EVIL },
      body: invitation(email),
    });
    expect(response.status).toBe(200);
    expect(emailsTo(email)).toBe(1);
  });

  test('reads (GET) with the cookie need no Origin', async () => {
    const response = await call(servers.getOrganizationData, {
      query: { documentId: orgId, type: 'organization' },
      headers: { Cookie: `__session=${session}`, Origin: EVIL },
    });
    expect(response.status).toBe(200);
  });

  test('public routes are exempt: a submission with its key from any website', async () => {
    const app = await createApp(orgId, owner.uid, {
      name: 'Site',
      websiteUrl: 'https://site.example',
      gtmContainerId: 'GTM-ABC123',
      payloadUrls: [],
    });
    const { key } = await rotateSubmissionKey(orgId, app.id);
    const response = await call(servers.submissions, {
      method: 'POST',
      token: key,
      headers: { Origin: 'https://site.example', Cookie: `__session=${session}` },
      body: { event: 'Lead' },
    });
    expect(response.status).toBe(202);
  });
});
