import { expect, test } from '@playwright/test';
import { createTestOrganization, createTestUser, logIn, userWithOrganizations } from '@/tests/e2e/helpers';

test('a second organization is created from the list, and opens', async ({ page }) => {
  const { user } = await userWithOrganizations(2);
  await logIn(page, user, { landing: '/organizations' });
  await page.getByRole('button', { name: 'New organization' }).click();
  const dialog = page.getByRole('dialog', { name: 'New organization' });
  await dialog.getByRole('button', { name: 'Create organization' }).click();
  await expect(dialog.getByText('Enter your organization name')).toBeVisible();
  await dialog.getByLabel('Organization name').fill('Third Company');
  await dialog.getByRole('button', { name: 'Create organization' }).click();
  await expect(page).toHaveURL(/^http:\/\/[^/]+\/[A-Za-z0-9]{20}\/subscription$/);
  await page.goto('/organizations');
  await expect(page.getByRole('list', { name: 'Organizations' }).getByRole('button')).toHaveCount(3);
});

test('a super admin sees every organization and finds one by name', async ({ page }) => {
  const admin = await createTestUser({ superAdmin: true });
  const owner = await createTestUser();
  const name = `Searchable ${Date.now()}`;
  await createTestOrganization([[owner, 'owner']], { company_name: name });
  await logIn(page, admin, { landing: /\/(organizations|onboarding)$/ });
  await page.goto('/organizations');
  await expect(page.getByText('Every organization on SignalBridge (super admin).')).toBeVisible();
  await page.getByLabel('Search by name').fill(name.toLowerCase());
  const list = page.getByRole('list', { name: 'Organizations' });
  await expect(list.getByRole('button')).toHaveCount(1);
  await list.getByRole('button', { name: new RegExp(name) }).click();
  await expect(page).toHaveURL(/\/connection$/);
  await expect(page.getByRole('heading', { name: 'Connections' })).toBeVisible();
});
