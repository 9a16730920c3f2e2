import { type Page } from '@playwright/test';
import { userWithOrganizations } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * Console errors, uncaught page errors and failed responses of this app, from now on; `settled()`
 * is true while no request is in flight.
 */
function watchForErrors(page: Page, origin: string) {
  const errors: string[] = [];
  let inFlight = 0;
  page.on('request', () => (inFlight += 1));
  page.on('requestfinished', () => (inFlight -= 1));
  page.on('requestfailed', () => (inFlight -= 1));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400 && response.url().startsWith(origin)) {
      errors.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
    }
  });
  return { errors, settled: () => inFlight <= 0 };
}

const originOf = (page: Page) => new URL(page.url()).origin;

test('/SourceSettings without parameters renders without a hydration error', async ({ page, loginPage }) => {
  const { user, orgIds } = await userWithOrganizations(1);
  await loginPage.logIn(user, { landing: `/${orgIds[0]}/connection` });
  const { errors, settled } = watchForErrors(page, originOf(page));
  await page.goto('/SourceSettings');
  await expect(page.getByText('Open a source or destination to pick the ad accounts it covers.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Go to your sources' })).toBeVisible();
  await expect.poll(settled).toBe(true);
  expect(errors).toEqual([]);
});

test('signing out from the Apps page sends no request without a token', async ({ page, loginPage, appShell }) => {
  const { user, orgIds } = await userWithOrganizations(1);
  await loginPage.logIn(user, { landing: `/${orgIds[0]}/connection` });
  await appShell.open('Apps');
  await expect(page.getByText('No apps yet.')).toBeVisible();
  const { errors, settled } = watchForErrors(page, originOf(page));
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL('/login');
  await expect(page.getByRole('button', { name: 'Log in' })).toBeVisible();
  await expect.poll(settled).toBe(true);
  expect(errors).toEqual([]);
});
