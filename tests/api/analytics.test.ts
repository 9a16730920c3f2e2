import { createHmac } from 'node:crypto';
import acceptInvitation from '@/pages/api/acceptInvitation';
import createOrganization from '@/pages/api/createOrganization';
import identify from '@/pages/api/customerio/identify';
import track from '@/pages/api/customerio/track';
import getIntercomHash from '@/pages/api/getIntercomHash';
import getOrSaveUser from '@/pages/api/getOrSaveUser';
import identifyUserWithOrganization from '@/pages/api/identifyUserWithOrganization';
import sendInvitation from '@/pages/api/sendInvitation';
import { adminAuth } from '@/lib/server/firebaseAdmin';
import type { FakeCustomerIo } from '@/sandbox/customerio';
import { createTestOrganization, createTestUser, signIn, type TestUser } from '@/tests/fixtures/firebase';
import { serveWithCustomerIo, stopServed } from '@/tests/api/helpers/customerIo';
import { call, type TestServer } from '@/tests/api/helpers/server';
import { spyOnLog } from '@/tests/fixtures/logSpy';

const handlers = {
  identify,
  track,
  identifyUserWithOrganization,
  getIntercomHash,
  getOrSaveUser,
  createOrganization,
  sendInvitation,
  acceptInvitation,
};
type Name = keyof typeof handlers;
let servers: Record<Name, TestServer>;
let fake: FakeCustomerIo;
let alice: TestUser;
let bob: TestUser;
let aliceOrg: string;
let bobOrg: string;

beforeAll(async () => {
  ({ servers, fake } = await serveWithCustomerIo(handlers, { INTERCOM_IDENTITY_SECRET: 'intercom-test-secret' }));
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
  [aliceOrg, bobOrg] = await Promise.all([createTestOrganization([[alice, 'owner']]), createTestOrganization([[bob, 'owner']])]);
});
afterAll(() => stopServed({ servers, fake }));

const post = (name: Name, user: TestUser | { token: string }, body: unknown) =>
  call(servers[name], { method: 'POST', token: user.token, body });
const eventsOf = (uid: string, name: string) => fake.events.filter((event) => event.customerId === uid && event.name === name);

describe('POST /api/customerio/identify and /track', () => {
  test('a user identifies themselves, with their organization', async () => {
    const response = await post('identify', alice, {
      userId: alice.uid,
      traits: { user_id: alice.uid, email: alice.email, name: 'Alice', org_id: aliceOrg },
    });
    expect(response.body).toEqual({ success: true, message: 'User identified' });
    expect(fake.people[alice.uid]).toMatchObject({ user_id: alice.uid, email: alice.email, name: 'Alice', org_id: aliceOrg });
  });

  test('nobody identifies or tracks someone else, or claims an organization they are not in', async () => {
    const traits = { user_id: alice.uid, email: alice.email, name: 'x' };
    expect((await post('identify', bob, { userId: alice.uid, traits })).status).toBe(403);
    expect((await post('identify', bob, { userId: bob.uid, traits: { ...traits, user_id: bob.uid } })).status).toBe(403);
    expect(
      (await post('identify', bob, { userId: bob.uid, traits: { user_id: bob.uid, email: bob.email, org_id: aliceOrg } })).status,
    ).toBe(404);
    expect((await post('track', bob, { userId: alice.uid, eventName: 'Error Received' })).status).toBe(403);
    expect((await post('track', bob, { userId: bob.uid, eventName: 'Error Received', properties: { org_id: aliceOrg } })).status).toBe(404);
    expect(fake.people[bob.uid]).toBeUndefined();
  });

  test('the browser reports only what it is the one to know; server events cannot be forged', async () => {
    const ok = await post('track', bob, { userId: bob.uid, eventName: 'Error Received', properties: { message: 'boom', org_id: bobOrg } });
    expect(ok.body).toEqual({ success: true, message: 'Event tracked' });
    expect(eventsOf(bob.uid, 'Error Received')).toEqual([
      { customerId: bob.uid, name: 'Error Received', data: { message: 'boom', org_id: bobOrg } },
    ]);
    const forged = await post('track', bob, { userId: bob.uid, eventName: 'Organization Joined' });
    expect(forged.status).toBe(400);
    expect(eventsOf(bob.uid, 'Organization Joined')).toEqual([]);
  });
});

describe('POST /api/identifyUserWithOrganization', () => {
  test('members only, themselves only', async () => {
    const ok = await post('identifyUserWithOrganization', alice, { userId: alice.uid, organizationId: aliceOrg });
    expect(ok.body).toEqual({ message: 'User identified with organization' });
    expect(fake.people[alice.uid]).toMatchObject({ org_id: aliceOrg, org_role: 'owner' });
    expect((await post('identifyUserWithOrganization', alice, { userId: alice.uid, organizationId: bobOrg })).status).toBe(404);
    expect((await post('identifyUserWithOrganization', alice, { userId: bob.uid, organizationId: aliceOrg })).status).toBe(403);
  });
});

describe('events at their moment, once', () => {
  test('Account Created when the database user is created, not on later sign-ins', async () => {
    const email = `analytics-${Date.now()}@example.test`;
    const { uid } = await adminAuth().createUser({ email, password: 'secret123' });
    const token = await signIn(email, 'secret123');
    const body = { email, fullName: 'Ana', uid, photoURL: '' };
    await post('getOrSaveUser', { token }, body);
    await post('getOrSaveUser', { token }, body);
    expect(eventsOf(uid, 'Account Created')).toHaveLength(1);
    expect(fake.people[uid]).toMatchObject({ email, name: 'Ana' });
  });

  test('Organization Created and Organization Joined', async () => {
    const created = await post('createOrganization', alice, { companyName: 'Events Inc', userId: alice.uid, isDefault: true });
    const orgId = created.body.organizationId as string;
    expect(eventsOf(alice.uid, 'Organization Created').filter((event) => event.data.org_id === orgId)).toHaveLength(1);

    const invitee = await createTestUser();
    const invitation = await post('sendInvitation', alice, {
      email: invitee.email,
      organization_id: orgId,
      inviter_user_id: alice.uid,
      inviter_email: alice.email,
    });
    await post('acceptInvitation', invitee, { invitationId: invitation.body.invitationId, userId: invitee.uid });
    expect(eventsOf(invitee.uid, 'Organization Joined')).toEqual([
      { customerId: invitee.uid, name: 'Organization Joined', data: { org_id: orgId } },
    ]);
  });

  test('a Customer.io failure never breaks the action', async () => {
    const key = process.env.CUSTOMERIO_API_KEY;
    process.env.CUSTOMERIO_API_KEY = 'revoked-key';
    const spy = spyOnLog();
    try {
      const response = await post('createOrganization', bob, { companyName: 'Still Works', userId: bob.uid, isDefault: true });
      expect(response.status).toBe(200);
      expect(spy.entries).toContainEqual(
        expect.objectContaining({ level: 'error', fields: expect.objectContaining({ analyticsEvent: 'Organization Created' }) }),
      );
    } finally {
      spy.mockRestore();
      process.env.CUSTOMERIO_API_KEY = key;
    }
  });
});

describe('POST /api/getIntercomHash', () => {
  test("returns the HMAC of the caller's own id, and refuses anyone else's", async () => {
    const own = await post('getIntercomHash', alice, { userId: alice.uid });
    expect(own.body).toEqual({ userHash: createHmac('sha256', 'intercom-test-secret').update(alice.uid).digest('hex') });
    const other = await post('getIntercomHash', bob, { userId: alice.uid });
    expect(other.status).toBe(403);
    expect(other.body).not.toHaveProperty('userHash');
  });
});
