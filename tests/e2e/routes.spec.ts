import { DEMO } from '@/scripts/lib/demo';
import { userWithOrganizations } from '@/tests/e2e/helpers';
import { REDIRECTING_WHEN_SIGNED_IN, ROUTES } from '@/tests/e2e/routes';
import { expect, test } from '@/tests/e2e/support/fixtures';

// One test walks every route, so its deadline grows with them: up to 15 s a route (a busy CI machine has been
// three times slower than a quiet one), and each assertion still fails on its own 15 s.
const PER_ROUTE_MS = 15_000;

test('signed in, every route of the spec renders with its layout', async ({ page, loginPage }) => {
  test.setTimeout(30_000 + ROUTES.length * PER_ROUTE_MS);
  const { user, orgIds } = await userWithOrganizations(1);
  await loginPage.logIn(user, { landing: `/${orgIds[0]}/connection` });
  for (const [route, layout] of ROUTES) {
    if (REDIRECTING_WHEN_SIGNED_IN.has(route)) continue;
    const path = route.replace('{org}', orgIds[0]!);
    await test.step(`${route} → ${layout}`, async () => {
      const response = await page.goto(path);
      expect(response?.status()).toBe(200);
      await expect(page).toHaveURL(path);
      await expect(page.locator(`[data-layout="${layout}"]`)).toBeVisible();
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(page.getByRole('note', { name: 'Demo data' })).toHaveCount(0);
    });
  }
});

test('signed out, every page but the sign-in pages and invitations sends to /login with a callback', async ({ page }) => {
  test.setTimeout(ROUTES.length * PER_ROUTE_MS);
  for (const [route] of ROUTES) {
    const path = route.replace('{org}', 'acme');
    const open = ['/login', '/signUp', '/forgotPassword'].includes(route) || route.includes('acceptInvitation');
    await test.step(path, async () => {
      await page.goto(path);
      if (open) await expect(page).toHaveURL(path);
      else await expect(page).toHaveURL(`/login?callback=${encodeURIComponent(path)}`);
    });
  }
});

test("the demo organization's pages wear the Demo marker", async ({ page, loginPage }) => {
  await loginPage.logIn(DEMO, { landing: `/${DEMO.orgId}/connection` });
  await page.goto(`/${DEMO.orgId}/connection`);
  await expect(page.locator('[data-layout="demo"]')).toBeVisible();
  await expect(page.getByRole('note', { name: 'Demo data' })).toContainText('Demo');
  await expect(page.getByRole('heading', { name: 'Connections' })).toBeVisible();
});

test('an unknown path is a 404 titled Page Not Found, signed in or not', async ({ page }) => {
  const response = await page.goto('/this/page/does-not-exist');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Page Not Found' })).toBeVisible();
  await expect(page).toHaveTitle(/Page Not Found/);
  await expect(page).toHaveURL('/this/page/does-not-exist');
});

test('the 500 page says Internal Server Error', async ({ page }) => {
  await page.goto('/500');
  await expect(page.getByRole('heading', { name: 'Internal Server Error' })).toBeVisible();
});

test('the organization navigation is keyboard reachable and marks the current page', async ({ page, loginPage }) => {
  const { user, orgIds } = await userWithOrganizations(1);
  await loginPage.logIn(user, { landing: `/${orgIds[0]}/connection` });
  await page.goto(`/${orgIds[0]}/source`);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Sources' })).toHaveAttribute('aria-current', 'page');
  await nav.getByRole('link', { name: 'Destinations' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(`/${orgIds[0]}/destination`);
  await expect(page.getByRole('heading', { name: 'Destinations' })).toBeVisible();
});
