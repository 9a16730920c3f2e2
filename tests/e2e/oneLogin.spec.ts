import { type Page } from 'playwright/test';
import { userWithOrganizations } from '@/tests/e2e/helpers';
import { SANDBOX_MIXPANEL } from '@/sandbox/platforms';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * Issue 37 §5 and §6, the marketer's path: Meta connected once as a source, its accounts picked once,
 * then the same login and accounts in New connection and in the New conversion wizard (without leaving
 * it), and the app's page says where its events go from the same conversions.
 */

async function allowOnFacebook(page: Page) {
  await expect(page.getByRole('heading', { name: 'SignalBridge wants to access your Facebook account' })).toBeVisible();
  await page.getByRole('button', { name: 'Allow' }).click();
}

test('one Meta login for both directions: accounts picked once, used inline by the wizard, and the app lists the conversion', async ({
  page,
  loginPage,
  appsPage,
  newConversionPage,
}) => {
  test.setTimeout(180_000);
  const { user, orgIds } = await userWithOrganizations(1);
  const orgId = orgIds[0]!;
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });

  // Connect Meta as a source and pick its accounts: once.
  await page.goto(`/${orgId}/source`);
  await page.getByRole('button', { name: 'Connect Meta Ads' }).click();
  await allowOnFacebook(page);
  await expect(page).toHaveURL(/\/source\/[^/]+\/meta\/configuration\?connected=1$/);
  await page.getByRole('checkbox', { name: /Acme Shoes \(Meta\)/ }).check();
  await page.getByRole('checkbox', { name: /Acme Outlet \(Meta\)/ }).check();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(page.getByText('Saved: 2 accounts.')).toBeVisible();

  // A place to copy ad data to, so New connection has both ends.
  await page.goto(`/${orgId}/destination`);
  const mixpanel = page.getByRole('form', { name: 'Mixpanel' });
  await mixpanel.getByLabel('Service account username').fill(SANDBOX_MIXPANEL.username);
  await mixpanel.getByLabel('Service account secret').fill(SANDBOX_MIXPANEL.secret);
  await mixpanel.getByLabel('Project id').fill(SANDBOX_MIXPANEL.projects.US.id);
  await mixpanel.getByRole('button', { name: 'Connect Mixpanel' }).click();
  await expect(page).toHaveURL(/\/destination\/[^/]+\/configuration\?connected=1$/);

  // New connection: the accounts picked on the source come ticked.
  await page.goto(`/${orgId}/createConnection`);
  await page.getByLabel('Source', { exact: true }).selectOption({ label: 'Meta Ads · Sandbox Marketer · Meta Ads' });
  await expect(page.getByRole('checkbox', { name: /Acme Shoes \(Meta\)/ })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: /Acme Outlet \(Meta\)/ })).toBeChecked();
  await expect(page.getByText('Pick at least one ad account')).toHaveCount(0);

  // New conversion: the destination step offers the same login inline and creates the destination there.
  const appName = 'Acme store';
  await appsPage.ensureApp(orgId, appName);
  await newConversionPage.goto(orgId);
  await newConversionPage.chooseApp(appName);
  await expect(newConversionPage.step('Choose a destination')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Go to destinations' })).toBeVisible();
  await page.getByRole('button', { name: 'Use your Meta Ads login (Sandbox Marketer)' }).click();
  await expect(page).toHaveURL(`/${orgId}/createConversion`);
  await expect(newConversionPage.step('Choose a destination')).toBeVisible();
  // Named apart from the source, chosen, with the accounts picked on the source: no second pick.
  await expect(page.getByRole('radio', { name: /Meta Ads conversions · Sandbox Marketer/ })).toBeChecked();
  await expect(page.getByText('2 ad accounts picked')).toBeVisible();
  await expect(page.getByRole('button', { name: /Use your Meta Ads login/ })).toHaveCount(0);
  await page.getByLabel('Ad account', { exact: true }).selectOption({ label: 'Acme Shoes (Meta) · 101' });
  await page.getByLabel('Pixel', { exact: true }).selectOption({ label: 'Acme Shoes Pixel · 555000111' });
  await newConversionPage.continue();
  await expect(newConversionPage.step('Map the events')).toBeVisible();
  await page.getByLabel('Event names to send').fill('Lead');
  await page.getByLabel('Event names to send').press('Enter');
  await newConversionPage.continue();
  await expect(newConversionPage.step('Review and create')).toBeVisible();
  await page.getByLabel('Name').fill('Leads to Meta');
  await page.getByRole('button', { name: 'Create conversion' }).click();
  await expect(page).toHaveURL(new RegExp(`/${orgId}/conversion/[^/]+/configuration$`));

  // The app's page: the conversion that sends its events, and Meta not "Not set up".
  await page.goto(`/${orgId}/app`);
  await page.getByRole('link', { name: appName }).click();
  const where = page.getByRole('table', { name: 'Where conversions go' });
  await expect(where.getByRole('row', { name: /Meta Ads/ })).toContainText('No routing · the conversion “Leads to Meta” sends here');
  const fromApp = page.getByRole('table', { name: 'Conversions from this app' });
  await expect(fromApp.getByRole('row', { name: /Leads to Meta/ })).toContainText('Meta Ads pixel “Acme Shoes Pixel”');
  await expect(fromApp.getByRole('row', { name: /Leads to Meta/ })).toContainText('Active');
  await fromApp.getByRole('link', { name: 'Leads to Meta' }).click();
  await expect(page.getByRole('heading', { name: 'Leads to Meta', level: 1 })).toBeVisible();
});
