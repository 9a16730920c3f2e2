import path from 'node:path';
import { type Page, type Response } from 'playwright/test';
import { uniqueEmail, userWithOrganizations } from '@/tests/e2e/helpers';
import { realPath, richOrganization } from '@/tests/e2e/richOrganization';
import { ROUTES } from '@/tests/e2e/routes';
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
  await expect(page.getByRole('heading', { name: 'Connections' })).toBeVisible();
  // The organization is selected once its page renders and survives the reload below once persisted.
  await expect.poll(() => page.evaluate(() => localStorage.getItem('persist:signalbridge') ?? '')).toContain(orgIds[0]);
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

/**
 * Content-Security-Policy violations: Chromium's own console lines ("Refused to …", "… Content Security Policy …"),
 * at any level, and each `securitypolicyviolation` event of any frame, written to the console by an init script
 * (Playwright runs it outside the page's policy).
 */
async function watchForCspViolations(page: Page) {
  const violations: string[] = [];
  let where = '';
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(
        `Content Security Policy violation: ${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`,
      ),
    ),
  );
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(`${where}: ${message.text()}`);
  });
  return { violations, at: (pagePath: string) => (where = pagePath) };
}

/** The page's own policy: sent with every page, strict in a production build, and no HSTS on http. */
function expectPolicy(response: Response | null, pagePath: string) {
  const headers = response?.headers() ?? {};
  const csp = headers['content-security-policy'] ?? '';
  expect(csp, `${pagePath}: Content-Security-Policy`).toContain("default-src 'self'");
  expect(csp, pagePath).toContain("frame-ancestors 'none'");
  expect(csp, pagePath).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
  expect(csp, pagePath).not.toContain('unsafe-eval');
  expect(headers['strict-transport-security'], `${pagePath}: HSTS on http`).toBeUndefined();
}

/** A page is done when its heading shows and its spinners are gone (and so its requests have answered). */
async function settled(page: Page) {
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await expect(page.locator('.spinner[role="status"]')).toHaveCount(0);
}

const PAGES = [...ROUTES.map(([route]) => route), '/this/page/does-not-exist', '/500'];
const PER_PAGE_MS = 15_000;

test('signed in, every page loads under its Content-Security-Policy without a violation', async ({ page, loginPage }) => {
  test.setTimeout(60_000 + PAGES.length * PER_PAGE_MS);
  const rich = await richOrganization();
  const { violations, at } = await watchForCspViolations(page);
  at('sign-in');
  await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
  // Pages a signed-in user is sent away from (REDIRECTING_WHEN_SIGNED_IN) load where they send.
  for (const route of PAGES) {
    const pagePath = realPath(route, rich);
    await test.step(pagePath, async () => {
      at(pagePath);
      const response = await page.goto(pagePath);
      expectPolicy(response, pagePath);
      await settled(page);
    });
  }
  expect(violations).toEqual([]);
});

test('signed out, every page loads under its Content-Security-Policy without a violation', async ({ page }) => {
  test.setTimeout(60_000 + PAGES.length * PER_PAGE_MS);
  const rich = await richOrganization();
  const { violations, at } = await watchForCspViolations(page);
  // Pages behind sign-in load /login; invitations and the sign-in pages load themselves.
  for (const route of PAGES) {
    const pagePath = realPath(route, rich);
    await test.step(pagePath, async () => {
      at(pagePath);
      const response = await page.goto(pagePath);
      expectPolicy(response, pagePath);
      await settled(page);
    });
  }
  expect(violations).toEqual([]);
});

test('the Google popup sign-in runs under the policy without a violation', async ({ page, context }) => {
  // The popup flow loads Google's gapi (here tests/fakes/gapi.js, as in auth.spec.ts) and frames the Auth emulator.
  await context.route('https://apis.google.com/js/api.js*', (route) =>
    route.fulfill({ path: path.join(__dirname, '../fakes/gapi.js'), contentType: 'text/javascript' }),
  );
  const { violations, at } = await watchForCspViolations(page);
  at('Google popup');
  await page.goto('/login');
  const popupPromise = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'Continue with Google' }).click();
  const popup = await popupPromise;
  await popup.locator('#add-account-button button').click();
  await popup.locator('#email-input').fill(uniqueEmail('csp'));
  await popup.locator('#display-name-input').fill('Casey Policy');
  await popup.locator('#sign-in').click();
  await expect(page).toHaveURL('/onboarding');
  await settled(page);
  expect(violations).toEqual([]);
});
