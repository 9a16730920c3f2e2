import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { DEMO } from '@/scripts/lib/demo';
import { createTestUser, logIn, persistedState, signOut } from '@/tests/e2e/helpers';

const uniqueEmail = (label: string) => `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;

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

async function signUp(page: Page, { name, email, password }: { name: string; email: string; password: string }) {
  await page.goto('/signUp');
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
}

test('register → signed in at once → onboarding → create the first organization', async ({ page, request }) => {
  const email = uniqueEmail('new');
  await signUp(page, { name: 'Nora New', email, password: 'secret123' });
  // Sign-up leaves the user signed in: no second log-in.
  await expect(page).toHaveURL('/onboarding');
  // the verification link went out at sign-up, continuing to the invitations waiting for the user
  const [verification] = await oobCodes(request, email, 'VERIFY_EMAIL');
  expect(new URL(verification!.oobLink).searchParams.get('continueUrl')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/organizations$/);

  await page.getByLabel('Organization name').fill('Nora Rockets');
  await page.getByRole('button', { name: 'Create organization' }).click();
  // A new organization has no subscription yet: its pages wait behind the plans.
  await expect(page).toHaveURL(/\/[^/]+\/subscription$/);
  await expect(page.getByRole('heading', { name: 'Subscription for Nora Rockets' })).toBeVisible();

  await page.goto('/organizations');
  await expect(page.getByRole('list', { name: 'Organizations' })).toContainText('Nora Rockets');
});

test('registration shows the provider messages verbatim', async ({ page }) => {
  await signUp(page, { name: 'Weak', email: uniqueEmail('weak'), password: '123' });
  await expect(page.getByRole('form').getByRole('alert')).toHaveText('Password should be at least 6 characters long.');
  await signUp(page, { name: 'Again', email: DEMO.email, password: 'secret123' });
  await expect(page.getByRole('form').getByRole('alert')).toHaveText(
    'This email is already in use. Please try a different email or log in.',
  );
  await signUp(page, { name: 'Bad', email: 'not-an-email', password: 'secret123' });
  await expect(page.getByRole('form').getByRole('alert')).toHaveText(
    'That email address does not look right. Please check it and try again.',
  );
});

test('a wrong password shows the provider message and stays on the login page', async ({ page }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(DEMO.email);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('form').getByRole('alert')).toHaveText('The email or password is incorrect.');
  await expect(page).toHaveURL('/login');
});

test('the seeded demo user signs in; signing out forgets the user and the session', async ({ page, context }) => {
  await logIn(page, DEMO, { landing: `/${DEMO.orgId}/connection` });
  expect((await context.cookies()).find((c) => c.name === '__session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

  await page.reload();
  await expect(page.getByTestId('signed-in-email')).toHaveText(DEMO.email);
  await signOut(page);
  await expect.poll(async () => (await context.cookies()).find((c) => c.name === '__session')).toBeUndefined();
  expect((await persistedState(page)).user).toMatchObject({ uid: null, email: null, isAuthenticated: false, orgId: null });
  await page.goto(`/${DEMO.orgId}/connection`);
  await expect(page).toHaveURL(/\/login\?callback=/);
});

test('Google popup sign-in through the Auth emulator', async ({ page, context }) => {
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
  await expect(page.getByTestId('signed-in-email')).toHaveText(email);
});

async function requestReset(page: Page, email: string) {
  await page.goto('/forgotPassword');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
}

const resetAnswer = (email: string) =>
  `If an account exists for ${email}, we sent a link to reset the password. Open it to choose a new password, then log in.`;

test('password reset answers the same whether or not the email has an account', async ({ page, request }) => {
  const nobody = uniqueEmail('nobody');
  await requestReset(page, nobody);
  await expect(page.getByRole('status')).toHaveText(resetAnswer(nobody));
  await expect(page.getByRole('form').getByRole('alert')).toHaveCount(0);
  expect(await oobCodes(request, nobody, 'PASSWORD_RESET')).toEqual([]);

  const user = await createTestUser();
  await requestReset(page, user.email);
  await expect(page.getByRole('status')).toHaveText(resetAnswer(user.email));
});

test('password reset: the email links back to /login, and the new password works', async ({ page, request }) => {
  const user = await createTestUser();
  await requestReset(page, user.email);
  await expect(page.getByRole('status')).toHaveText(resetAnswer(user.email));

  let code: OobCode | undefined;
  await expect.poll(async () => (code = (await oobCodes(request, user.email, 'PASSWORD_RESET')).at(-1))).toBeTruthy();
  expect(new URL(code!.oobLink).searchParams.get('continueUrl')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login$/);

  const host = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  const reset = await request.post(`http://${host}/identitytoolkit.googleapis.com/v1/accounts:resetPassword?key=demo-api-key`, {
    data: { oobCode: code!.oobCode, newPassword: 'brand-new-password' },
  });
  expect(reset.ok()).toBe(true);
  await logIn(page, { email: user.email, password: 'brand-new-password' }, { landing: '/onboarding' });
});
