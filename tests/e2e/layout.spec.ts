import { randomUUID } from 'node:crypto';
import { type Page } from 'playwright/test';
import { FieldValue } from 'firebase-admin/firestore';
import { adminAuth, adminDb } from '@/lib/server/firebaseAdmin';
import { createTestOrganization } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';

const PHONE = { width: 390, height: 844 };
const LONG_NAME = 'Averyveryverylongorganizationnamewithoutanyspacesthatwouldwidenthewholepageifnothingbrokeit';

/** A user whose email is long enough to overflow any sidebar. */
async function userWithLongEmail() {
  const uid = `user-${randomUUID()}`;
  const email = `marketing.operations.lead.${uid.slice(5, 17)}@subsidiary-of-a-very-long-company-name.example.test`;
  const password = 'test-password';
  await adminAuth().createUser({ uid, email, password, displayName: 'Long Email' });
  await adminDb().collection('users').doc(uid).set({ uid, email, fullName: 'Long Email', photoURL: '' });
  return { uid, email, password, token: '' };
}

/** An organization with a long unbroken name and a source whose name and login are just as long. */
async function crowdedOrganization() {
  const user = await userWithLongEmail();
  const orgId = await createTestOrganization([[user, 'owner']], { company_name: LONG_NAME, name: LONG_NAME });
  await adminDb()
    .collection('organizations')
    .doc(orgId)
    .collection('sources')
    .add({
      platform: 'google_ads',
      name: `Google Ads · ${LONG_NAME}`,
      account_name: user.email,
      status: 'needs_reauth',
      credential_id: 'none',
      accounts: [],
      settings: {},
      connected_at: FieldValue.serverTimestamp(),
      created_at: FieldValue.serverTimestamp(),
    });
  return { user, orgId };
}

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/** The page is no wider than the screen. */
async function expectNoWiderThan(page: Page, width: number) {
  expect(await pageWidth(page)).toBeLessThanOrEqual(width);
}

test('at 390 px nothing is wider than the screen: long names wrap, the email is cut, the list is a column of cards', async ({
  page,
  loginPage,
}) => {
  const { user, orgId } = await crowdedOrganization();
  await page.setViewportSize(PHONE);
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/source`);
  const table = page.getByRole('table', { name: 'Sources' });
  await expect(table).toContainText('Needs reconnecting');
  await expectNoWiderThan(page, PHONE.width);
  // The list is a card per row: the long name wraps inside it and the status stays on screen.
  expect(await table.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  const status = (await table.locator('td[data-label="Status"]').first().boundingBox())!;
  expect(status.x + status.width).toBeLessThanOrEqual(PHONE.width);
  await expect(page.getByTestId('current-organization')).toHaveText(LONG_NAME);

  // The navigation folds into a menu above the content; it unfolds, and closes again on navigating.
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeHidden();
  const menu = page.getByRole('button', { name: 'Menu' });
  // Escape folds it again and leaves the keyboard on its button.
  await menu.click();
  await expect(nav).toBeVisible();
  await nav.getByRole('link', { name: 'Sources' }).focus();
  await page.keyboard.press('Escape');
  await expect(nav).toBeHidden();
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeFocused();
  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByTestId('signed-in-email')).toBeVisible();
  await expectNoWiderThan(page, PHONE.width);
  await nav.getByRole('link', { name: 'Payments' }).click();
  await expect(page).toHaveURL(`/${orgId}/payment`);
  await expect(nav).toBeHidden();

  const pages: Array<[string, string]> = [
    [`/${orgId}/settings`, user.email],
    [`/${orgId}/app`, 'No apps yet.'],
    ['/organizations', LONG_NAME],
  ];
  for (const [path, content] of pages) {
    await test.step(path, async () => {
      await page.goto(path);
      await expect(page.getByRole('main').getByText(content).first()).toBeVisible();
      await expectNoWiderThan(page, PHONE.width);
    });
  }
});

test('on a wide screen the long email stays inside the sidebar and the long name inside the page', async ({ page, loginPage }) => {
  const { user, orgId } = await crowdedOrganization();
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/source`);
  await expect(page.getByRole('table', { name: 'Sources' })).toContainText('Needs reconnecting');
  await expectNoWiderThan(page, page.viewportSize()!.width);
  // The sidebar stays open: no menu to unfold.
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Menu' })).toBeHidden();
  const sidebar = (await page.locator('aside').boundingBox())!;
  const email = (await page.getByTestId('signed-in-email').boundingBox())!;
  expect(email.x + email.width).toBeLessThanOrEqual(sidebar.x + sidebar.width);
  await expect(page.getByTestId('signed-in-email')).toHaveAttribute('title', user.email);
});

for (const [label, viewport] of [
  ['wide', { width: 1280, height: 800 }],
  ['390 px', PHONE],
] as const) {
  test(`the sign-in pages are centred, without a sidebar (${label})`, async ({ page }) => {
    await page.setViewportSize(viewport);
    for (const path of ['/login', '/signUp', '/forgotPassword']) {
      await test.step(path, async () => {
        await page.goto(path);
        const form = page.locator('.auth-card');
        await expect(form.getByRole('heading', { level: 1 })).toBeVisible();
        await expect(page.locator('aside')).toHaveCount(0);
        await expect(page.locator('[data-layout="default"]')).toBeVisible();
        const box = (await form.boundingBox())!;
        expect(Math.abs(box.x + box.width / 2 - viewport.width / 2)).toBeLessThanOrEqual(2);
        await expectNoWiderThan(page, viewport.width);
      });
    }
  });
}
