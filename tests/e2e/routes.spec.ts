import { expect, test } from '@playwright/test';
import { DEMO } from '@/scripts/lib/demo';
import { ROUTES } from '@/tests/e2e/routes';

test.describe('every route of the spec renders with its layout', () => {
  for (const [route, layout] of ROUTES) {
    test(`${route} → ${layout}`, async ({ page }) => {
      const response = await page.goto(route.replace('{org}', 'acme'));
      expect(response?.status()).toBe(200);
      await expect(page.locator(`[data-layout="${layout}"]`)).toBeVisible();
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(page.getByText('Demo', { exact: true })).toHaveCount(0);
    });
  }
});

test("the demo organization's pages wear the Demo marker", async ({ page }) => {
  await page.goto(`/${DEMO.orgId}/connection`);
  await expect(page.locator('[data-layout="demo"]')).toBeVisible();
  await expect(page.getByRole('note', { name: 'Demo data' })).toContainText('Demo');
  await expect(page.getByRole('heading', { name: 'Connections' })).toBeVisible();
});

test('an unknown path is a 404 titled Page Not Found', async ({ page }) => {
  const response = await page.goto('/this/page/does-not-exist');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Page Not Found' })).toBeVisible();
  await expect(page).toHaveTitle(/Page Not Found/);
});

test('the 500 page says Internal Server Error', async ({ page }) => {
  await page.goto('/500');
  await expect(page.getByRole('heading', { name: 'Internal Server Error' })).toBeVisible();
});

test('the organization navigation is keyboard reachable and marks the current page', async ({ page }) => {
  await page.goto('/acme/source');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Sources' })).toHaveAttribute('aria-current', 'page');
  await nav.getByRole('link', { name: 'Destinations' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/acme\/destination$/);
  await expect(page.getByRole('heading', { name: 'Destinations' })).toBeVisible();
});
