import { type APIRequestContext, type Browser, type Page } from 'playwright/test';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { createTestOrganization, createTestUser, fakeCustomerIo, uniqueEmail, type TestUser } from '@/tests/e2e/helpers';
import { LoginPage, SignUpPage, type Landing } from '@/tests/e2e/support/authPages';
import { expect, test } from '@/tests/e2e/support/fixtures';
import { OnboardingPage, OrganizationsPage } from '@/tests/e2e/support/organizationsPages';
import { signedInOwner } from '@/tests/e2e/support/signedIn';
import { TeamPage } from '@/tests/e2e/support/teamPage';

interface RecordedEmail {
  to: string;
  messageData: { accept_url: string; organization_name: string };
}

/** The invitation link, read from the fake Customer.io as the invitee would read their inbox. */
async function invitationLink(page: Page, email: string): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(async () => {
      const messages = await fakeCustomerIo<RecordedEmail[]>(page, 'messages');
      link = messages.filter((message) => message.to === email).at(-1)?.messageData.accept_url;
      return link;
    })
    .toBeTruthy();
  return link!;
}

/** The newest email-verification link the Auth emulator would have sent to the address, once there are `count`. */
async function verificationLink(request: APIRequestContext, email: string, count = 1): Promise<string> {
  const host = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  const project = process.env.FIREBASE_PROJECT_ID;
  let links: string[] = [];
  await expect
    .poll(async () => {
      const response = await request.get(`http://${host}/emulator/v1/projects/${project}/oobCodes`);
      const { oobCodes } = (await response.json()) as { oobCodes: Array<{ email: string; requestType: string; oobLink: string }> };
      links = oobCodes.filter((code) => code.email === email && code.requestType === 'VERIFY_EMAIL').map((code) => code.oobLink);
      return links.length;
    })
    .toBeGreaterThanOrEqual(count);
  return links.at(-1)!;
}

/** A second browser with no one signed in: the invitee, or a stranger with a link. */
async function freshPage(browser: Browser) {
  return (await browser.newContext()).newPage();
}

/** A second browser, signed in as `user`. */
async function signedInPage(browser: Browser, user: TestUser, landing: Landing) {
  const page = await freshPage(browser);
  await new LoginPage(page).logIn(user, { landing });
  return page;
}

/** An owner of a fresh organization signs in and invites `email` from the team page (which stays open). */
async function ownerInvites(loginPage: LoginPage, teamPage: TeamPage, email: string) {
  const { user: owner, orgId } = await signedInOwner(loginPage);
  await teamPage.invite(orgId, email);
  return { owner, orgId };
}

test('invite → the invitee signs up from the emailed link → accepts → works in the organization', async ({
  page,
  browser,
  loginPage,
  teamPage,
}) => {
  const email = uniqueEmail('invitee');
  const { owner, orgId } = await ownerInvites(loginPage, teamPage, email);
  await expect(teamPage.invitations).toContainText(email);
  const link = await invitationLink(page, email);
  expect(new URL(link).pathname).toMatch(new RegExp(`^/${orgId}/acceptInvitation/[A-Za-z0-9]+$`));
  expect(new URL(link).searchParams.get('token')).toMatch(/^[\w-]{43}$/);

  // A fresh account, not verified yet: the secret the link carries is its proof that the email reached it.
  const invitee = await freshPage(browser);
  await invitee.goto(link);
  await expect(invitee).toHaveURL(new URL(link).pathname); // the secret leaves the address bar
  // Signed out, the link's secret shows who invites to where; the sign-up form knows the invited email.
  const organizationName = (await adminDb().doc(`organizations/${orgId}`).get()).get('company_name') as string;
  await expect(invitee.getByTestId('invitation-preview')).toHaveText(`Test User invited you to join ${organizationName}.`);
  await expect(invitee.getByText(`Log in, or create an account with ${email}, to accept it.`)).toBeVisible();
  await invitee.getByRole('link', { name: 'Create an account' }).click();
  const signUpPage = new SignUpPage(invitee);
  await expect(signUpPage.email).toHaveValue(email);
  // Signed in by the sign-up itself, straight back to the invitation.
  await signUpPage.signUp({ email }, new URL(link).pathname);
  await expect(invitee.getByText(`${owner.email} invited you to join`)).toBeVisible();
  await invitee.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(invitee).toHaveURL(`/${orgId}/connection`);
  await expect(invitee.getByRole('heading', { name: 'Connections' })).toBeVisible();

  await page.reload();
  await expect(teamPage.members).toContainText(email);
  await expect(teamPage.invitation(email)).toContainText('accepted');
});

test('a wrong or expired link secret shows the invitation page as it is for anyone: nothing about the invitation', async ({
  page,
  browser,
  loginPage,
  teamPage,
}) => {
  const email = uniqueEmail('wrong');
  await ownerInvites(loginPage, teamPage, email);
  const link = new URL(await invitationLink(page, email));
  const token = link.searchParams.get('token')!;
  link.searchParams.set('token', `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`);

  const stranger = await freshPage(browser);
  await stranger.goto(link.toString());
  await expect(stranger.getByRole('heading', { name: 'You are invited' })).toBeVisible();
  await expect(
    stranger.getByText('Log in, or create an account with the email address the invitation was sent to, to accept it.'),
  ).toBeVisible();
  await expect(stranger.getByTestId('invitation-preview')).toHaveCount(0);
  await expect(stranger.locator('body')).not.toContainText(email);
  await stranger.getByRole('link', { name: 'Create an account' }).click();
  await expect(new SignUpPage(stranger).email).toHaveValue('');
});

test('invited without the link: onboarding asks to verify the email, then lists the invitation to accept', async ({
  browser,
  request,
  loginPage,
  teamPage,
}) => {
  const email = uniqueEmail('late');
  const { owner, orgId } = await ownerInvites(loginPage, teamPage, email);
  // renamed after the invitation went out: the invitee reads the name it has now
  await adminDb().doc(`organizations/${orgId}`).update({ name: 'Renamed Rockets', company_name: 'Renamed Rockets' });

  const invitee = await freshPage(browser);
  const signUpPage = new SignUpPage(invitee);
  await signUpPage.goto();
  await signUpPage.signUp({ email }, '/onboarding');
  const onboarding = new OnboardingPage(invitee);
  const verify = onboarding.verifyEmail;
  await expect(verify).toContainText(`Verify your email address to see invitations sent to ${email}`);
  await expect(onboarding.invitations).toHaveCount(0);

  await verify.getByRole('button', { name: 'Resend verification email' }).click();
  await expect(verify.getByRole('status')).toHaveText(`We sent a new link to ${email}. Open it, then come back here.`);
  const link = await verificationLink(request, email, 2);
  expect((await request.get(link)).ok()).toBe(true);

  await verify.getByRole('button', { name: 'I have verified my email' }).click();
  const invitations = onboarding.invitations;
  await expect(invitations).toContainText('Renamed Rockets');
  await expect(invitations).toContainText(`from ${owner.email}`);
  await invitations.getByRole('button', { name: 'Accept' }).click();
  await expect(invitee).toHaveURL(`/${orgId}/connection`);
});

test('an invitee declines from /organizations; the inviter sees it rejected', async ({ page, browser, loginPage, teamPage }) => {
  const invitee = await createTestUser();
  await createTestOrganization([[invitee, 'owner']]);
  await createTestOrganization([[invitee, 'owner']]);
  const { owner } = await ownerInvites(loginPage, teamPage, invitee.email);

  const inviteePage = await signedInPage(browser, invitee, '/organizations');
  const invitations = new OrganizationsPage(inviteePage).invitations;
  await expect(invitations).toContainText(owner.email);
  await invitations.getByRole('button', { name: 'Decline' }).click();
  await expect(invitations).toHaveCount(0);

  await page.reload();
  await expect(teamPage.invitations).toContainText('rejected');
});

test('a revoked invitation link no longer works', async ({ page, browser, loginPage, teamPage }) => {
  const invitee = await createTestUser();
  await ownerInvites(loginPage, teamPage, invitee.email);
  const link = await invitationLink(page, invitee.email);

  await teamPage.revokeInvitation(invitee.email);
  await expect(teamPage.invitation(invitee.email)).toContainText('revoked');

  const inviteePage = await freshPage(browser);
  await inviteePage.goto(link);
  await inviteePage.getByRole('link', { name: 'Log in' }).click();
  await expect(inviteePage).toHaveURL('/login');
  await new LoginPage(inviteePage).logIn(invitee, { from: '/login', landing: new URL(link).pathname });
  await expect(inviteePage.getByRole('main').getByRole('alert')).toHaveText('No pending invitations found');
});

test('a removed member loses access at once, even with a page open', async ({ browser, loginPage, teamPage }) => {
  // Two users, two signed-in pages and a dozen navigations.
  test.slow();
  const owner = await createTestUser();
  const member = await createTestUser();
  const orgId = await createTestOrganization([
    [owner, 'owner'],
    [member, 'member'],
  ]);
  const memberPage = await signedInPage(browser, member, `/${orgId}/connection`);
  await memberPage.goto(`/${orgId}/source`);
  await expect(memberPage.getByRole('heading', { name: 'Sources' })).toBeVisible();
  // a member sees the team but none of the controls they may not use
  const memberTeam = new TeamPage(memberPage);
  await memberTeam.goto(orgId);
  await expect(memberTeam.members).toContainText(owner.email);
  await expect(memberTeam.inviteForm).toHaveCount(0);
  await expect(memberPage.getByRole('button', { name: 'Remove' })).toHaveCount(0);
  await memberPage.goto(`/${orgId}/source`);

  await loginPage.logIn(owner, { landing: `/${orgId}/connection` });
  await teamPage.goto(orgId);
  await teamPage.removeMember(member.email);
  await expect(teamPage.member(member.email)).toHaveCount(0);

  await expect(memberPage).toHaveURL('/organizations');
  await memberPage.goto(`/${orgId}/source`);
  await expect(memberPage).toHaveURL('/organizations');
});

test('the only owner is told before leaving that it will be refused; once a teammate is owner, leaving works', async ({
  page,
  loginPage,
  teamPage,
}) => {
  const owner = await createTestUser();
  const colleague = await createTestUser();
  const orgId = await createTestOrganization([
    [owner, 'owner'],
    [colleague, 'admin'],
  ]);
  await loginPage.logIn(owner, { landing: `/${orgId}/connection` });
  await teamPage.goto(orgId);
  await teamPage.member(owner.email).getByRole('button', { name: 'Leave' }).click();
  const refused = page.getByRole('dialog', { name: 'You are the only owner' });
  await expect(refused).toContainText(
    'An organization needs an owner: make someone else owner first. Give a teammate the owner role in this list, and leave after.',
  );
  await expect(refused.getByRole('button', { name: 'Leave' })).toBeDisabled();
  await refused.getByRole('button', { name: 'Cancel' }).click();
  await expect(refused).toBeHidden();

  const colleagueRole = teamPage.member(colleague.email).getByLabel(`Role of ${colleague.email}`);
  await colleagueRole.selectOption('owner');
  await page.getByRole('dialog', { name: 'Change role?' }).getByRole('button', { name: 'Change role' }).click();
  await expect(colleagueRole).toHaveValue('owner');
  await teamPage.member(owner.email).getByRole('button', { name: 'Leave' }).click();
  const leave = page.getByRole('dialog', { name: 'Leave this organization?' });
  await expect(leave).toContainText('You will lose access to this organization at once.');
  await leave.getByRole('button', { name: 'Leave' }).click();
  await expect(page).toHaveURL(/\/(organizations|onboarding)$/);
});
