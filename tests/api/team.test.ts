import acceptInvitation from '@/pages/api/acceptInvitation';
import getPendingInvitation from '@/pages/api/getPendingInvitation';
import getSentInvitation from '@/pages/api/getSentInvitation';
import getTeamMembers from '@/pages/api/getTeamMembers';
import invitationPreview, { PREVIEWS_PER_ADDRESS_PER_MINUTE } from '@/pages/api/invitationPreview';
import rejectInvitation from '@/pages/api/rejectInvitation';
import removeMember from '@/pages/api/removeMemberFromOrganization';
import sendInvitation from '@/pages/api/sendInvitation';
import updateOrganization from '@/pages/api/orgs/[orgId]/index';
import revokeInvitation from '@/pages/api/orgs/[orgId]/invitations/[invitationId]/index';
import resendInvitation from '@/pages/api/orgs/[orgId]/invitations/[invitationId]/resend';
import changeRole from '@/pages/api/orgs/[orgId]/members/[memberId]';
import { adminDb } from '@/lib/server/firebaseAdmin';
import type { FakeCustomerIo } from '@/sandbox/customerio';
import { createTestOrganization, createTestUser, uniqueEmail, type TestUser } from '@/tests/fixtures/firebase';
import { serveWithCustomerIo, stopServed } from '@/tests/api/helpers/customerIo';
import { call, type TestServer } from '@/tests/api/helpers/server';

const handlers = {
  sendInvitation,
  getPendingInvitation,
  acceptInvitation,
  rejectInvitation,
  getTeamMembers,
  invitationPreview,
  getSentInvitation,
  removeMember,
  revokeInvitation,
  resendInvitation,
  changeRole,
  updateOrganization,
};

type Name = keyof typeof handlers;
let servers: Record<Name, TestServer>;
let fake: FakeCustomerIo;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;
let superAdmin: TestUser;
let orgId: string;

beforeAll(async () => {
  ({ servers, fake } = await serveWithCustomerIo(handlers, { APP_URL: 'http://app.test' }));
  [owner, admin, member, outsider, superAdmin] = await Promise.all([
    createTestUser(),
    createTestUser(),
    createTestUser(),
    createTestUser(),
    createTestUser({ superAdmin: true }),
  ]);
  orgId = await createTestOrganization([
    [owner, 'owner'],
    [admin, 'admin'],
    [member, 'member'],
  ]);
  await createTestOrganization([[outsider, 'owner']]);
});
afterAll(() => stopServed({ servers, fake }));

const post = (name: Name, user: TestUser, body: unknown, query?: Record<string, string>) =>
  call(servers[name], { method: 'POST', token: user.token, body, query });

const freshEmail = () => uniqueEmail('invitee');

function invite(user: TestUser, email = freshEmail(), extra: Record<string, unknown> = {}) {
  return post('sendInvitation', user, {
    email,
    organization_id: orgId,
    inviter_user_id: user.uid,
    organization: 'whatever the client says',
    inviter_email: user.email,
    ...extra,
  });
}

async function invitationFor(user: TestUser): Promise<string> {
  const response = await invite(owner, user.email);
  expect(response.status).toBe(200);
  return response.body.invitationId as string;
}

describe('sendInvitation', () => {
  test('tenant × role: outsider 404, member 403, admin, owner and super admin may invite', async () => {
    expect((await invite(outsider)).status).toBe(404);
    expect((await invite(member)).status).toBe(403);
    for (const user of [admin, owner, superAdmin]) expect((await invite(user)).status).toBe(200);
  });

  test('emails the link through Customer.io with the organization name from the server', async () => {
    const email = freshEmail();
    const response = await invite(admin, email);
    expect(response.body).toMatchObject({ success: true, emailSent: true });
    const sent = fake.messages.find((message) => message.to === email)!;
    expect(sent).toMatchObject({ transactionalMessageId: 'invitation', identifiers: { email } });
    expect(sent.messageData).toMatchObject({
      accept_url: expect.stringMatching(
        new RegExp(`^http://app\\.test/${orgId}/acceptInvitation/${response.body.invitationId}\\?token=[\\w-]{43}$`),
      ),
      inviter_email: admin.email,
      organization_name: expect.stringMatching(/^Org /),
    });
  });

  test('the inviter fields are checked against the caller', async () => {
    const response = await invite(admin, freshEmail(), { inviter_user_id: owner.uid });
    expect(response.status).toBe(403);
    const spoofedEmail = await invite(admin, freshEmail(), { inviter_email: owner.email });
    expect(spoofedEmail.status).toBe(403);
  });

  test('inviting a member, or an email with a pending invitation, says so', async () => {
    expect((await invite(owner, member.email)).body).toMatchObject({
      success: false,
      message: 'This person is already a member of the organization.',
    });
    const email = freshEmail();
    expect((await invite(owner, email)).status).toBe(200);
    const twice = await invite(owner, email);
    expect(twice.status).toBe(409);
    expect(twice.body.message).toMatch(/already pending/);
  });

  test('an admin cannot invite an owner; a malformed body → 400, nothing written', async () => {
    expect((await invite(admin, freshEmail(), { role: 'owner' })).status).toBe(400);
    const before = (await adminDb().collection('invitations').where('organization_id', '==', orgId).get()).size;
    const response = await invite(owner, 'not-an-email');
    expect(response.status).toBe(400);
    expect(response.body.fieldErrors).toHaveProperty('email');
    expect((await adminDb().collection('invitations').where('organization_id', '==', orgId).get()).size).toBe(before);
  });
});

describe('the invitee', () => {
  test('sees only their own pending invitations', async () => {
    const invitee = await createTestUser();
    const invitationId = await invitationFor(invitee);
    const own = await post('getPendingInvitation', invitee, { email: invitee.email });
    expect(own.body).toMatchObject({
      success: true,
      invitations: [{ id: invitationId, organizationId: orgId, inviterEmail: owner.email }],
    });
    expect((await post('getPendingInvitation', outsider, { email: invitee.email })).status).toBe(403);
    expect((await post('getPendingInvitation', outsider, { email: outsider.email })).body).toEqual({
      success: false,
      invitations: [],
      message: 'No pending invitations found for this user',
    });
  });

  test('accepts once: the membership is added exactly once, a second accept finds nothing', async () => {
    const invitee = await createTestUser();
    const invitationId = await invitationFor(invitee);
    const accepted = await post('acceptInvitation', invitee, { invitationId, userId: invitee.uid });
    expect(accepted.body).toEqual({ success: true, organizationId: orgId });
    const again = await post('acceptInvitation', invitee, { invitationId, userId: invitee.uid });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('No pending invitations found');
    const memberships = await adminDb().collection(`organizations/${orgId}/members`).where('uid', '==', invitee.uid).get();
    expect(memberships.size).toBe(1);
    expect(memberships.docs[0]!.get('role')).toBe('member');
  });

  test("nobody accepts someone else's invitation", async () => {
    const invitee = await createTestUser();
    const invitationId = await invitationFor(invitee);
    expect((await post('acceptInvitation', outsider, { invitationId, userId: outsider.uid })).status).toBe(404);
    expect((await post('acceptInvitation', outsider, { invitationId, userId: invitee.uid })).status).toBe(403);
    const membership = await adminDb().doc(`organizations/${orgId}/members/${outsider.uid}`).get();
    expect(membership.exists).toBe(false);
  });

  test('rejects; a rejected, revoked or expired invitation cannot be accepted', async () => {
    const invitee = await createTestUser();
    const rejected = await invitationFor(invitee);
    expect((await post('rejectInvitation', outsider, { invitationId: rejected })).status).toBe(404);
    expect((await post('rejectInvitation', invitee, { invitationId: rejected })).body).toEqual({ success: true });
    expect((await post('acceptInvitation', invitee, { invitationId: rejected, userId: invitee.uid })).status).toBe(404);

    const expired = await invitationFor(invitee);
    await adminDb()
      .doc(`invitations/${expired}`)
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await post('acceptInvitation', invitee, { invitationId: expired, userId: invitee.uid })).status).toBe(404);
  });
});

describe('invitationPreview (the signed-out invitation page)', () => {
  test('the link secret shows the organization, the inviter by name and the email; anything else gets the same 404', async () => {
    const email = freshEmail();
    const response = await invite(admin, email);
    const invitationId = response.body.invitationId as string;
    const token = new URL(fake.messages.find((message) => message.to === email)!.messageData.accept_url as string).searchParams.get(
      'token',
    )!;
    await adminDb().doc(`users/${admin.uid}`).update({ fullName: 'Ada Admin' });
    const preview = (body: unknown) => call(servers.invitationPreview, { method: 'POST', body });
    const organizationName = (await adminDb().doc(`organizations/${orgId}`).get()).get('company_name') as string;

    const shown = await preview({ invitationId, token });
    expect(shown.status).toBe(200);
    expect(shown.body.invitation).toEqual({ organizationName, inviterName: 'Ada Admin', email });

    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const refusals = [await preview({ invitationId, token: wrong }), await preview({ invitationId: 'nosuchinvitation', token })];
    await adminDb()
      .doc(`invitations/${invitationId}`)
      .update({ expires_at: new Date(Date.now() - 1000) });
    refusals.push(await preview({ invitationId, token }));
    for (const refused of refusals) {
      expect(refused.status).toBe(404);
      // The same answer each time, but for the request id every answer carries.
      expect({ ...refused.body, requestId: undefined }).toEqual({ ...refusals[0]!.body, requestId: undefined });
      expect(JSON.stringify(refused.body)).not.toMatch(new RegExp(`${email}|${organizationName}|Ada`));
    }
    // A malformed secret is refused by its form alone.
    expect((await preview({ invitationId, token: 'short' })).status).toBe(400);
  });

  test('a resent invitation still previews with the first email’s secret, and with the new one', async () => {
    const email = freshEmail();
    const invitationId = (await invite(admin, email)).body.invitationId as string;
    expect((await post('resendInvitation', admin, undefined, { orgId, invitationId })).status).toBe(200);
    const tokens = fake.messages
      .filter((message) => message.to === email)
      .map((message) => new URL(message.messageData.accept_url as string).searchParams.get('token')!);
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).not.toBe(tokens[1]);
    for (const token of tokens) {
      const shown = await call(servers.invitationPreview, { method: 'POST', body: { invitationId, token } });
      expect(shown.status).toBe(200);
      expect(shown.body.invitation).toMatchObject({ email });
    }
  });

  test(`one address gets ${PREVIEWS_PER_ADDRESS_PER_MINUTE} previews a minute, then 429 with Retry-After; another address is not held up`, async () => {
    const from = (address: string) =>
      call(servers.invitationPreview, {
        method: 'POST',
        body: { invitationId: 'nosuchinvitation', token: 'A'.repeat(43) },
        headers: { 'X-Forwarded-For': address },
      });
    for (let i = 0; i < PREVIEWS_PER_ADDRESS_PER_MINUTE; i++) expect((await from('203.0.113.7')).status).toBe(404);
    const refused = await from('203.0.113.7');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/^Too many invitation previews from this address/),
    });
    expect((await from('203.0.113.8')).status).toBe(404);
    // An address made up by the client goes before the one our proxy appends: it does not start a fresh count.
    expect((await from('198.51.100.99, 203.0.113.7')).status).toBe(429);
  });
});

describe('team and invitation management', () => {
  test('reads: outsider 404; members, admins, owners and super admins see the team', async () => {
    expect((await post('getTeamMembers', outsider, { organizationId: orgId })).status).toBe(404);
    for (const user of [member, admin, owner, superAdmin]) {
      const response = await post('getTeamMembers', user, { organizationId: orgId });
      expect(response.status).toBe(200);
      expect(response.body.members).toEqual(
        expect.arrayContaining([expect.objectContaining({ uid: owner.uid, role: 'owner', email: owner.email })]),
      );
    }
    expect((await post('getSentInvitation', outsider, { organizationId: orgId })).status).toBe(404);
    expect((await post('getSentInvitation', member, { organizationId: orgId })).status).toBe(200);
  });

  test('a member who signed up without a full name is named by their email, not "—"', async () => {
    const nameless = await createTestUser();
    const org = await createTestOrganization([[nameless, 'owner']]);
    await adminDb().doc(`organizations/${org}/members/${nameless.uid}`).update({ fullName: '  ' });
    const response = await post('getTeamMembers', nameless, { organizationId: org });
    expect(response.body.members).toEqual([expect.objectContaining({ uid: nameless.uid, name: nameless.email, email: nameless.email })]);
  });

  test('revoke and resend: outsider 404, member 403, admin ok; a revoked invitation is gone for the invitee', async () => {
    const invitee = await createTestUser();
    const invitationId = await invitationFor(invitee);
    const revoke = (user: TestUser, org = orgId) =>
      call(servers.revokeInvitation, { method: 'DELETE', token: user.token, query: { orgId: org, invitationId } });
    const resend = (user: TestUser) => post('resendInvitation', user, undefined, { orgId, invitationId });

    expect((await revoke(outsider)).status).toBe(404);
    expect((await resend(member)).status).toBe(403);
    expect((await resend(admin)).body).toMatchObject({ success: true, emailSent: true });
    expect((await revoke(member)).status).toBe(403);
    // an organization's admin cannot reach another organization's invitation through their own
    const otherOrg = await createTestOrganization([[admin, 'owner']]);
    expect((await revoke(admin, otherOrg)).status).toBe(404);
    expect((await revoke(admin)).body).toEqual({ success: true });
    expect((await post('acceptInvitation', invitee, { invitationId, userId: invitee.uid })).status).toBe(404);
  });

  test('remove: ranks hold, the last owner stays, members may leave', async () => {
    const [victim, leaver] = await Promise.all([createTestUser(), createTestUser()]);
    const team = await createTestOrganization([
      [owner, 'owner'],
      [admin, 'admin'],
      [member, 'member'],
      [victim, 'member'],
      [leaver, 'member'],
    ]);
    const remove = (user: TestUser, memberId: string) => post('removeMember', user, { organizationId: team, memberId });

    expect((await remove(outsider, victim.uid)).status).toBe(404);
    expect((await remove(member, victim.uid)).status).toBe(403);
    expect((await remove(admin, owner.uid)).status).toBe(403);
    expect((await remove(leaver, leaver.uid)).body).toEqual({ success: true });
    expect((await remove(owner, owner.uid)).status).toBe(409);
    expect((await remove(admin, victim.uid)).body).toEqual({ success: true });
    expect((await adminDb().doc(`organizations/${team}/members/${victim.uid}`).get()).exists).toBe(false);
    expect((await remove(superAdmin, member.uid)).status).toBe(200);
  });

  test('change role: admins promote to admin but never to owner; the last owner is not demoted', async () => {
    const [person] = await Promise.all([createTestUser()]);
    const team = await createTestOrganization([
      [owner, 'owner'],
      [admin, 'admin'],
      [member, 'member'],
      [person, 'member'],
    ]);
    const patch = (user: TestUser, memberId: string, role: string) =>
      call(servers.changeRole, { method: 'PATCH', token: user.token, query: { orgId: team, memberId }, body: { role } });

    expect((await patch(outsider, person.uid, 'admin')).status).toBe(404);
    expect((await patch(member, person.uid, 'admin')).status).toBe(403);
    expect((await patch(admin, person.uid, 'owner')).status).toBe(403);
    expect((await patch(admin, owner.uid, 'member')).status).toBe(403);
    expect((await patch(admin, person.uid, 'admin')).status).toBe(200);
    expect((await patch(owner, owner.uid, 'admin')).status).toBe(409);
    expect((await patch(owner, person.uid, 'owner')).status).toBe(200);
    expect((await patch(owner, owner.uid, 'admin')).status).toBe(200);
    expect((await patch(owner, person.uid, 'boss')).status).toBe(400);
  });

  test('organization profile: members 403, admins rename; no SVG logo', async () => {
    const patch = (user: TestUser, body: unknown) =>
      call(servers.updateOrganization, { method: 'PATCH', token: user.token, query: { orgId }, body });
    expect((await patch(outsider, { companyName: 'X', company_logo: null })).status).toBe(404);
    expect((await patch(member, { companyName: 'X', company_logo: null })).status).toBe(403);
    expect((await patch(admin, { companyName: 'X', company_logo: 'https://example.test/logo.svg' })).status).toBe(400);
    expect((await patch(admin, { companyName: 'Renamed Co', company_logo: null })).status).toBe(200);
    expect((await adminDb().doc(`organizations/${orgId}`).get()).get('company_name')).toBe('Renamed Co');
  });
});

test('the fake Customer.io refuses what the real one refuses', async () => {
  const post = (headers: Record<string, string>, body: string) =>
    fetch(`${fake.url}/v1/send/email`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
  expect((await post({ Authorization: 'Bearer wrong' }, '{}')).status).toBe(401);
  const auth = { Authorization: `Bearer ${fake.apiKey}` };
  expect((await post(auth, '{not json')).status).toBe(400);
  expect((await post(auth, JSON.stringify({ to: 'a@example.test', identifiers: { email: 'a@example.test' } }))).status).toBe(400);
  expect(
    (await post(auth, JSON.stringify({ to: 'a@example.test', transactional_message_id: 1, identifiers: { id: 1, email: 'x' } }))).status,
  ).toBe(400);
});
