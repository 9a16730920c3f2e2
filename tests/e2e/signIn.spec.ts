import { expect, test } from '@playwright/test';
import { DEMO } from '@/scripts/lib/demo';

test('the seeded demo user signs in through the Auth emulator', async ({ page }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(DEMO.email);
  await page.getByLabel('Password').fill(DEMO.password);
  await page.getByRole('button', { name: 'Log in' }).click();

  await expect(page).toHaveURL(/\/organizations$/);
  await expect(page.getByTestId('signed-in-email')).toHaveText(DEMO.email);

  // The signed-in user survives a reload (persisted), and signing out forgets them.
  await page.reload();
  await expect(page.getByTestId('signed-in-email')).toHaveText(DEMO.email);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  const stored = await page.evaluate(() => window.localStorage.getItem('persist:signalbridge'));
  expect(stored).not.toContain(DEMO.email);
});

test('a wrong password shows the provider message and stays on the login page', async ({ page }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(DEMO.email);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('form', { name: /Log in/ }).getByRole('alert')).toHaveText(
    'The email or password is incorrect.',
  );
  await expect(page).toHaveURL(/\/login$/);
});
