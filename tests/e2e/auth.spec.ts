import path from 'node:path';
import { type APIRequestContext } from 'playwright/test';
import { DEMO } from '@/scripts/lib/demo';
import { createTestUser, persistedState, uniqueEmail } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';
import { watchPage } from '@/tests/e2e/support/pageWatch';

interface OobCode {
  email: string;
  requestType: 'PASSWORD_RESET' | 'VERIFY_EMAIL';
  oobCode: string;
  oobLink: string;
}

/** The emails the Auth emulator would have sent (its out-of-band codes). */
async function oobCodes(request: APIRequestContext, email: string, requestType: OobCode['requestType']): Promise<OobCode[]> {
  const host = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  const project = process.env.FIREBASE_PROJECT_ID;
  const response = await request.get(`http://${host}/emulator/v1/projects/${project}/oobCodes`);
  const { oobCodes: codes } = (await response.json()) as { oobCodes: OobCode[] };
  return codes.filter((code) => code.email === email && code.requestType === requestType);
}

test('register → signed in at once → onboarding → create the first organization', async ({
  page,
  request,
  signUpPage,
  onboardingPage,
  organizationsPage,
}) => {
  const email = uniqueEmail('new');
  await signUpPage.goto();
  // Sign-up leaves the user signed in: no second log-in.
  await signUpPage.signUp({ name: 'Nora New', email, password: 'secret123' }, '/onboarding');
  // the verification link went out at sign-up, continuing to the invitations waiting for the user
  const [verification] = await oobCodes(request, email, 'VERIFY_EMAIL');
  expect(new URL(verification!.oobLink).searchParams.get('continueUrl')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/organizations$/);

  const watched = watchPage(page);
  await onboardingPage.createOrganization('Nora Rockets');
  // A new organization has no subscription yet: it opens on its plans, straight away.
  await expect(page).toHaveURL(/\/[^/]+\/subscription$/);
  await expect(page.getByRole('heading', { name: 'Subscription for Nora Rockets' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Plans' })).toBeVisible();
  // No page it cannot open yet flashed on the way, and nothing was refused for want of a plan.
  expect(watched.refused).toEqual([]);
  expect(watched.paths.filter((path) => !path.endsWith('/subscription'))).toEqual([]);

  await organizationsPage.goto();
  await expect(organizationsPage.list).toContainText('Nora Rockets');
});

test('registration shows the provider messages verbatim', async ({ signUpPage }) => {
  await signUpPage.goto();
  await signUpPage.submit({ name: 'Weak', email: uniqueEmail('weak'), password: '123' });
  await expect(signUpPage.alert).toHaveText('Password should be at least 6 characters long.');
  await signUpPage.goto();
  await signUpPage.submit({ name: 'Again', email: DEMO.email, password: 'secret123' });
  await expect(signUpPage.alert).toHaveText('This email is already in use. Please try a different email or log in.');
  await signUpPage.goto();
  await signUpPage.submit({ name: 'Bad', email: 'not-an-email', password: 'secret123' });
  await expect(signUpPage.alert).toHaveText('That email address does not look right. Please check it and try again.');
});

test('a wrong password shows the provider message and stays on the login page', async ({ page, loginPage }) => {
  await loginPage.submit({ email: DEMO.email, password: 'not-the-password' });
  await expect(loginPage.alert).toHaveText('The email or password is incorrect.');
  await expect(page).toHaveURL('/login');
});

test('the seeded demo user signs in; signing out forgets the user and the session', async ({ page, context, loginPage, appShell }) => {
  await loginPage.logIn(DEMO, { landing: `/${DEMO.orgId}/connection` });
  expect((await context.cookies()).find((c) => c.name === '__session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

  await page.reload();
  await expect(appShell.signedInEmail).toHaveText(DEMO.email);
  await appShell.signOut();
  await expect.poll(async () => (await context.cookies()).find((c) => c.name === '__session')).toBeUndefined();
  expect((await persistedState(page)).user).toMatchObject({ uid: null, email: null, isAuthenticated: false, orgId: null });
  await page.goto(`/${DEMO.orgId}/connection`);
  await expect(page).toHaveURL(/\/login\?callback=/);
});

test('Google popup sign-in through the Auth emulator', async ({ page, context, appShell }) => {
  // Google's gapi loader cannot be fetched offline: serve our fake of it (tests/fakes/gapi.js).
  await context.route('https://apis.google.com/js/api.js*', (route) =>
    route.fulfill({ path: path.join(__dirname, '../fakes/gapi.js'), contentType: 'text/javascript' }),
  );
  const email = uniqueEmail('google');
  await page.goto('/login');
  const popupPromise = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'Continue with Google' }).click();
  const popup = await popupPromise;
  await popup.locator('#add-account-button button').click();
  await popup.locator('#email-input').fill(email);
  await popup.locator('#display-name-input').fill('Gina Google');
  await popup.locator('#sign-in').click();
  await expect(page).toHaveURL('/onboarding');
  await expect(appShell.signedInEmail).toHaveText(email);
});

const resetAnswer = (email: string) =>
  `If an account exists for ${email}, we sent a link to reset the password. Open it to choose a new password, then log in.`;

test('password reset answers the same whether or not the email has an account', async ({ request, forgotPasswordPage }) => {
  const nobody = uniqueEmail('nobody');
  await forgotPasswordPage.requestReset(nobody);
  await expect(forgotPasswordPage.answer).toHaveText(resetAnswer(nobody));
  await expect(forgotPasswordPage.alert).toHaveCount(0);
  expect(await oobCodes(request, nobody, 'PASSWORD_RESET')).toEqual([]);

  const user = await createTestUser();
  await forgotPasswordPage.requestReset(user.email);
  await expect(forgotPasswordPage.answer).toHaveText(resetAnswer(user.email));
});

test('password reset: the email links back to /login, and the new password works', async ({ request, forgotPasswordPage, loginPage }) => {
  const user = await createTestUser();
  await forgotPasswordPage.requestReset(user.email);
  await expect(forgotPasswordPage.answer).toHaveText(resetAnswer(user.email));

  let code: OobCode | undefined;
  await expect.poll(async () => (code = (await oobCodes(request, user.email, 'PASSWORD_RESET')).at(-1))).toBeTruthy();
  expect(new URL(code!.oobLink).searchParams.get('continueUrl')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login$/);

  const host = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  const reset = await request.post(`http://${host}/identitytoolkit.googleapis.com/v1/accounts:resetPassword?key=demo-api-key`, {
    data: { oobCode: code!.oobCode, newPassword: 'brand-new-password' },
  });
  expect(reset.ok()).toBe(true);
  await loginPage.logIn({ email: user.email, password: 'brand-new-password' }, { landing: '/onboarding' });
});
