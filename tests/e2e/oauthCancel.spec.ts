import { userWithOrganizations } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';

test('Cancel on a consent page spends its state: Allow pressed later on the same page connects nothing', async ({ page, loginPage }) => {
  const { user, orgIds } = await userWithOrganizations(1);
  const orgId = orgIds[0]!;
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/source`);
  await expect(page.getByText('No sources yet.')).toBeVisible();
  await page.getByRole('button', { name: 'Connect Google Ads' }).click();
  await expect(page.getByRole('heading', { name: 'SignalBridge wants to access your Google account' })).toBeVisible();
  const consentPage = page.url();

  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(/\/addSource\?error=access_denied/);
  await expect(page.getByRole('alert').filter({ hasText: 'You cancelled' })).toHaveText(
    'You cancelled connecting Google Ads. You did not allow access, so nothing was connected. You can try again whenever you are ready.',
  );

  // The same consent page again (the back button, or a saved link), and this time Allow.
  await page.goto(consentPage);
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect(page).toHaveURL(/\/addSource\?code=/);
  await expect(
    page.getByRole('alert').filter({ hasText: 'This connection link has expired or was already used. Start connecting again.' }),
  ).toBeVisible();
  await page.goto(`/${orgId}/source`);
  await expect(page.getByText('No sources yet.')).toBeVisible();
});
