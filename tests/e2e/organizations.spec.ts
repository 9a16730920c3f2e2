import { createTestOrganization, createTestUser, userWithOrganizations } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';
import { watchPage } from '@/tests/e2e/support/pageWatch';

test('a second organization is created from the list, and opens', async ({ page, loginPage, organizationsPage }) => {
  const { user } = await userWithOrganizations(2);
  await loginPage.logIn(user, { landing: '/organizations' });
  await organizationsPage.newOrganization();
  await organizationsPage.createOrganization();
  await expect(organizationsPage.newOrganizationDialog.getByText('Enter your organization name')).toBeVisible();
  const watched = watchPage(page);
  await organizationsPage.createOrganization('Third Company');
  await expect(page).toHaveURL(/^http:\/\/[^/]+\/[A-Za-z0-9]{20}\/subscription$/);
  await expect(page.getByRole('heading', { name: 'Subscription for Third Company' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Plans' })).toBeVisible();
  // Straight to the plans: not through its connections, which would be refused (402) without a plan.
  expect(watched.refused).toEqual([]);
  expect(watched.paths.filter((path) => !path.endsWith('/subscription'))).toEqual([]);
  await organizationsPage.goto();
  await expect(organizationsPage.entries).toHaveCount(3);
});

test('a super admin sees every organization and finds one by name', async ({ page, loginPage, organizationsPage, connectionsPage }) => {
  const admin = await createTestUser({ superAdmin: true });
  const owner = await createTestUser();
  const name = `Searchable ${Date.now()}`;
  await createTestOrganization([[owner, 'owner']], { company_name: name });
  await loginPage.logIn(admin, { landing: /\/(organizations|onboarding)$/ });
  await organizationsPage.goto();
  await expect(page.getByText('Every organization on SignalBridge (super admin).')).toBeVisible();
  await organizationsPage.search(name.toLowerCase());
  await expect(organizationsPage.entries).toHaveCount(1);
  await organizationsPage.open(new RegExp(name));
  await expect(page).toHaveURL(/\/connection$/);
  await expect(connectionsPage.heading).toBeVisible();
});
