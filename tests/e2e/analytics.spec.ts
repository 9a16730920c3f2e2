import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'playwright/test';
import { fakeCustomerIo } from '@/tests/e2e/helpers';

interface RecordedEvent {
  customerId: string;
  name: string;
  data: Record<string, unknown>;
}

test('sign-up sends Account Created once; creating the organization sends Organization Created', async ({ page }) => {
  const email = `events-${Date.now()}@example.test`;
  await page.goto('/signUp');
  await page.getByLabel('Full name').fill('Eve Events');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('secret123');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL('/onboarding');

  const accountCreated = async () =>
    (await fakeCustomerIo<RecordedEvent[]>(page, 'events')).filter((e) => e.name === 'Account Created' && e.data.email === email);
  await expect.poll(async () => (await accountCreated()).length).toBe(1);
  const uid = (await accountCreated())[0]!.customerId;

  await page.getByLabel('Organization name').fill('Eventful');
  await page.getByRole('button', { name: 'Create organization' }).click();
  await expect(page).toHaveURL(/\/subscription$/);
  const orgId = new URL(page.url()).pathname.split('/')[1];

  const eventsNamed = async (name: string) =>
    (await fakeCustomerIo<RecordedEvent[]>(page, 'events')).filter((e) => e.customerId === uid && e.name === name);
  await expect
    .poll(() => eventsNamed('Organization Created'))
    .toEqual([{ customerId: uid, name: 'Organization Created', data: { org_id: orgId } }]);
  expect(await eventsNamed('Account Created')).toHaveLength(1);
  // the browser told Customer.io who the person is and which organization they work in
  await expect
    .poll(async () => (await fakeCustomerIo<Record<string, Record<string, unknown>>>(page, 'people'))[uid])
    .toMatchObject({ email, org_id: orgId });
});

test('a new deployment shows a non-blocking banner offering a reload', async ({ page }) => {
  // The e2e server is the standalone one: it reads the BUILD_ID inside its own folder (a deployment replaces it).
  const distDir = process.env.NEXT_DIST_DIR || '.next';
  const buildIdFile = path.join(process.cwd(), distDir, 'standalone', distDir, 'BUILD_ID');
  const original = readFileSync(buildIdFile, 'utf8');
  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Log in to SignalBridge' })).toBeVisible();
  try {
    writeFileSync(buildIdFile, 'a-newer-build');
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    const banner = page.getByRole('region', { name: 'Update available' });
    await expect(banner).toHaveText('A new version is available — reload');
    // the page stays usable underneath
    await page.getByLabel('Email').fill('still@typing.test');
    await banner.getByRole('button', { name: 'reload' }).click();
    await expect(page.getByLabel('Email')).toHaveValue('');
  } finally {
    writeFileSync(buildIdFile, original);
  }
});
