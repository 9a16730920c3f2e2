import acceptInvitation from '@/pages/api/acceptInvitation';
import getPendingInvitation from '@/pages/api/getPendingInvitation';
import rejectInvitation from '@/pages/api/rejectInvitation';
import sendInvitation from '@/pages/api/sendInvitation';
import resendInvitation from '@/pages/api/orgs/[orgId]/invitations/[invitationId]/resend';
import { adminDb } from '@/lib/server/firebaseAdmin';
import type { FakeCustomerIo } from '@/sandbox/customerio';
import { createTestOrganization, createTestUser, uniqueEmail, type TestUser } from '@/tests/fixtures/firebase';
import { serveWithCustomerIo, stopServed } from '@/tests/api/helpers/customerIo';
import { call, type TestServer } from '@/tests/api/helpers/server';

const handlers = { sendInvitation, getPendingInvitation, acceptInvitation, rejectInvitation, resendInvitation };

type Name = keyof typeof handlers;
let servers: Record<Name, TestServer>;
let fake: FakeCustomerIo;
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  ({ servers, fake } = await serveWithCustomerIo(handlers, { APP_URL: 'http://app.test' }));
  owner = await createTestUser();
  orgId = await createTestOrganization([[owner, 'owner']], { company_name: 'Old Name Co' });
});
afterAll(() => stopServed({ servers, fake }));

const post = (name: Name, user: TestUser, body: unknown, query?: Record<string, string>) =>
  call(servers[name], { method: 'POST', token: user.token, body, query });

const freshEmail = () => uniqueEmail('invited');

/** Invites the email as an admin; returns the invitation id. */
async function invite(email: string): Promise<string> {
  const response = await post('sendInvitation', owner, {
    email,
    organization_id: orgId,
    inviter_user_id: owner.uid,
    inviter_email: owner.email,
    role: 'admin',
  });
  expect(response.status).toBe(200);
  return response.body.invitationId as string;
}

/** Invites the email and reads the link's secret from the email, as the invitee would in their inbox. */
async function inviteWithLink(email: string) {
  const invitationId = await invite(email);
  return { invitationId, token: linkToken(email, invitationId) };
}

/** The secret of the last link emailed for the invitation. */
function linkToken(email: string, invitationId: string): string {
  const sent = fake.messages.filter((message) => message.to === email).at(-1)!;
  const url = new URL(String(sent.messageData.accept_url));
  expect(url.pathname).toBe(`/${orgId}/acceptInvitation/${invitationId}`);
  const token = url.searchParams.get('token');
  expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  return token!;
}

const membership = (uid: string) => adminDb().doc(`organizations/${orgId}/members/${uid}`).get();
const invitationStatus = async (id: string) => (await adminDb().doc(`invitations/${id}`).get()).get('status');

describe('someone who registered the invited address without proving it is theirs', () => {
  test('sees no invitation by email, cannot accept it, cannot decline it', async () => {
    const email = freshEmail();
    const invitationId = await invite(email);
    const stranger = await createTestUser({ email, emailVerified: false });

    expect((await post('getPendingInvitation', stranger, { email })).body).toEqual({
      success: false,
      invitations: [],
      message: 'No pending invitations found for this user',
    });
    const accept = await post('acceptInvitation', stranger, { invitationId, userId: stranger.uid });
    expect(accept.status).toBe(404);
    expect(accept.body.message).toBe('No pending invitations found');
    expect((await membership(stranger.uid)).exists).toBe(false);

    expect((await post('rejectInvitation', stranger, { invitationId })).status).toBe(404);
    expect(await invitationStatus(invitationId)).toBe('pending');
  });

  test('a wrong secret, or the secret of another invitation, proves nothing', async () => {
    const email = freshEmail();
    const invitationId = await invite(email);
    const other = await inviteWithLink(freshEmail());
    const stranger = await createTestUser({ email, emailVerified: false });

    for (const token of ['A'.repeat(43), other.token]) {
      const pending = await post('getPendingInvitation', stranger, { email, invitationId, token });
      expect(pending.body).toMatchObject({ success: false, invitations: [] });
      const accept = await post('acceptInvitation', stranger, { invitationId, userId: stranger.uid, token });
      expect(accept.status).toBe(404);
    }
    expect((await membership(stranger.uid)).exists).toBe(false);
    expect(await invitationStatus(invitationId)).toBe('pending');
  });

  test('a malformed secret → 400, nothing changes', async () => {
    const email = freshEmail();
    const invitationId = await invite(email);
    const invitee = await createTestUser({ email, emailVerified: false });
    const response = await post('acceptInvitation', invitee, { invitationId, userId: invitee.uid, token: 'not/a token' });
    expect(response.status).toBe(400);
    expect(response.body.fieldErrors).toHaveProperty('token');
    expect(await invitationStatus(invitationId)).toBe('pending');
  });
});

describe('the invitee with the emailed link', () => {
  test('an unverified account that holds the secret sees the invitation and accepts it', async () => {
    const email = freshEmail();
    const { invitationId, token } = await inviteWithLink(email);
    const invitee = await createTestUser({ email, emailVerified: false });

    const pending = await post('getPendingInvitation', invitee, { email, invitationId, token });
    expect(pending.body).toMatchObject({
      success: true,
      invitations: [{ id: invitationId, organizationId: orgId, inviterEmail: owner.email, role: 'admin' }],
    });
    const accepted = await post('acceptInvitation', invitee, { invitationId, userId: invitee.uid, token });
    expect(accepted.body).toEqual({ success: true, organizationId: orgId });
    expect((await membership(invitee.uid)).get('role')).toBe('admin');
  });

  test('the secret works only for the invited address: another account with the link gets nothing', async () => {
    const email = freshEmail();
    const { invitationId, token } = await inviteWithLink(email);
    const other = await createTestUser({ emailVerified: false });
    const verifiedOther = await createTestUser();
    for (const user of [other, verifiedOther]) {
      expect((await post('acceptInvitation', user, { invitationId, userId: user.uid, token })).status).toBe(404);
      expect((await membership(user.uid)).exists).toBe(false);
    }
  });

  test('an unverified invitee may decline with the secret', async () => {
    const email = freshEmail();
    const { invitationId, token } = await inviteWithLink(email);
    const invitee = await createTestUser({ email, emailVerified: false });
    expect((await post('rejectInvitation', invitee, { invitationId, token })).body).toEqual({ success: true });
    expect(await invitationStatus(invitationId)).toBe('rejected');
  });

  test('the invitation stores only a hash of the secret; a resend mails a new link and the first still works', async () => {
    const email = freshEmail();
    const { invitationId, token } = await inviteWithLink(email);
    const stored = JSON.stringify((await adminDb().doc(`invitations/${invitationId}`).get()).data());
    expect(stored).not.toContain(token);

    expect((await post('resendInvitation', owner, undefined, { orgId, invitationId })).status).toBe(200);
    const resent = linkToken(email, invitationId);
    expect(resent).not.toBe(token);
    const invitee = await createTestUser({ email, emailVerified: false });
    for (const secret of [token, resent]) {
      const pending = await post('getPendingInvitation', invitee, { email, invitationId, token: secret });
      expect(pending.body).toMatchObject({ success: true, invitations: [{ id: invitationId }] });
    }
  });
});

test('a verified invitee sees and accepts by email alone', async () => {
  const email = freshEmail();
  const invitationId = await invite(email);
  const invitee = await createTestUser({ email });
  expect((await post('getPendingInvitation', invitee, { email })).body).toMatchObject({
    success: true,
    invitations: [{ id: invitationId }],
  });
  expect((await post('acceptInvitation', invitee, { invitationId, userId: invitee.uid })).body).toEqual({
    success: true,
    organizationId: orgId,
  });
});

test("the invitee reads the organization's name as it is now, in the list and in a resent email", async () => {
  const team = await createTestOrganization([[owner, 'owner']], { company_name: 'Before Rename' });
  const email = freshEmail();
  const response = await post('sendInvitation', owner, {
    email,
    organization_id: team,
    inviter_user_id: owner.uid,
    inviter_email: owner.email,
  });
  const invitationId = response.body.invitationId as string;
  await adminDb().doc(`organizations/${team}`).update({ name: 'After Rename', company_name: 'After Rename' });

  const invitee = await createTestUser({ email });
  expect((await post('getPendingInvitation', invitee, { email })).body).toMatchObject({
    invitations: [{ id: invitationId, organizationName: 'After Rename' }],
  });
  expect((await post('resendInvitation', owner, undefined, { orgId: team, invitationId })).status).toBe(200);
  const resent = fake.messages.filter((message) => message.to === email).at(-1)!;
  expect(resent.messageData.organization_name).toBe('After Rename');
});

test("the invitation email carries the organization's name HTML-escaped, as every email's data", async () => {
  const team = await createTestOrganization([[owner, 'owner']], { company_name: 'Acme <b>&</b> "Co"' });
  const email = freshEmail();
  expect(
    (await post('sendInvitation', owner, { email, organization_id: team, inviter_user_id: owner.uid, inviter_email: owner.email })).status,
  ).toBe(200);
  const sent = fake.messages.filter((message) => message.to === email).at(-1)!;
  expect(sent.messageData.organization_name).toBe('Acme &lt;b&gt;&amp;&lt;/b&gt; &quot;Co&quot;');
  expect(sent.messageData.accept_url).toMatch(/^http/);
});
