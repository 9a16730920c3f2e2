import { createApp } from '@/lib/server/repos/apps';
import { createTestUser, userWithOrganizations } from '@/tests/e2e/helpers';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * An app's keys on its custom-submission page: the website (publishable) key is replaced or revoked only
 * after a confirmation, by an owner or admin; a member sees the snippet but no key controls.
 */

const APP = { name: 'Key shop', websiteUrl: 'https://keys.example', gtmContainerId: 'GTM-KEYS1', payloadUrls: ['/thanks'] };

test('the website key: replaced, then revoked, each after a confirmation; a new one made again', async ({ page, loginPage }) => {
  const {
    user,
    orgIds: [orgId],
  } = await userWithOrganizations(1, 'owner');
  const app = await createApp(orgId!, user.uid, APP);
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/app/${app.id}/custom-submission`);
  await page.getByRole('button', { name: 'Show the snippet' }).click();
  const snippet = page.getByTestId('capture-snippet');
  const first = /\?key=(sbp_[\w-]+)/.exec((await snippet.textContent()) ?? '')![1]!;

  // Replace: asked first; cancelling changes nothing.
  await page.getByRole('button', { name: 'Replace website key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Replace the website key?' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(snippet).toContainText(first);
  await page.getByRole('button', { name: 'Replace website key' }).click();
  await dialog.getByRole('button', { name: 'Replace website key' }).click();
  await expect(page.getByText('New website key made: paste this snippet into your tag again.')).toBeVisible();
  await expect(snippet).not.toContainText(first);
  await expect(snippet).toContainText('?key=sbp_');

  // Revoke: the snippet is gone until a new key is made.
  await page.getByRole('button', { name: 'Revoke website key' }).click();
  await page.getByRole('dialog', { name: 'Revoke the website key?' }).getByRole('button', { name: 'Revoke website key' }).click();
  await expect(page.getByTestId('website-key-revoked')).toBeVisible();
  await expect(snippet).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('website-key-revoked')).toBeVisible();
  await page.getByRole('button', { name: 'Make a new website key' }).click();
  await expect(snippet).toContainText('?key=sbp_');
});

test('a member sees the snippet but cannot replace or revoke either key', async ({ page, loginPage }) => {
  const {
    user: owner,
    orgIds: [orgId],
  } = await userWithOrganizations(1, 'owner');
  const member = await createTestUser();
  await adminDb()
    .collection('organizations')
    .doc(orgId!)
    .collection('members')
    .doc(member.uid)
    .set({ uid: member.uid, role: 'member', email: member.email, fullName: 'Member' });
  const app = await createApp(orgId!, owner.uid, APP);
  await loginPage.logIn(member, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/app/${app.id}/custom-submission`);
  await expect(page.getByText('Owners and admins make, replace and revoke keys.')).toBeVisible();
  await expect(page.getByRole('button', { name: /Create key|Replace key|Revoke key/ })).toHaveCount(0);
  await page.getByRole('button', { name: 'Show the snippet' }).click();
  await expect(page.getByTestId('capture-snippet')).toContainText('?key=sbp_');
  await expect(page.getByRole('button', { name: /website key/ })).toHaveCount(0);
});

test('a new app: the checklist leads to the key and the snippet, the whole API contract is on the page with working copy buttons, no sideways scroll', async ({
  page,
  context,
  loginPage,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const {
    user,
    orgIds: [orgId],
  } = await userWithOrganizations(1, 'owner');
  const app = await createApp(orgId!, user.uid, { ...APP, name: 'Checklist shop' });
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/app/${app.id}`);
  const checklist = page.getByTestId('app-checklist');
  await expect(checklist).toContainText('4 steps left.');
  const steps = checklist.getByRole('list', { name: 'Getting started with this app' }).getByRole('listitem');
  await expect(steps).toHaveCount(4);
  await expect(steps.nth(0)).toContainText('Create a submission key (to do)');

  await steps.nth(0).getByRole('link', { name: 'Create a key' }).click();
  await expect(page).toHaveURL(`/${orgId}/app/${app.id}/custom-submission`);
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.getByTestId('submission-key').textContent())!;
  await page.getByRole('button', { name: 'Copy the key' }).click();
  await expect(page.getByRole('button', { name: 'Copy the key' }).locator('xpath=following-sibling::*[@aria-live]')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  // The contract, read off the schema: every field, the batch shape and limits, every answer.
  const fields = page.getByTestId('contract-fields');
  await expect(fields.getByRole('row')).toHaveCount(33);
  await expect(fields.getByRole('row', { name: /^eventId/ })).toContainText('a retry with the same id is the same event');
  await expect(page.getByText(/up to 500 events as/)).toContainText('A request is at most 1 MB.');
  for (const answer of ['202 Accepted: a batch', '400 Bad Request', '401 Unauthorized', '413 Content Too Large', '429 Too Many Requests'])
    await expect(page.getByRole('region', { name: answer })).toBeVisible();
  const batch = page.getByRole('region', { name: 'A batch', exact: true });
  await expect(batch).toHaveAttribute('tabindex', '0');
  await page.getByRole('button', { name: 'Copy a batch', exact: true }).press('Enter');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await batch.textContent());

  // The example is what the endpoint takes: its own curl body, posted with the new key, is accepted as documented.
  const body = JSON.parse(/-d '(.*)'$/s.exec((await page.getByRole('region', { name: 'One event', exact: true }).textContent())!)![1]!);
  const posted = await page.request.post('/api/submissions', { headers: { Authorization: `Bearer ${key}` }, data: body });
  expect(posted.status()).toBe(202);
  expect(await posted.json()).toEqual({ success: true, id: body.eventId });

  // No page-wide sideways scroll, at desktop and phone widths.
  const sideways = () => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
  expect(await sideways()).toBe(false);
  await page.setViewportSize({ width: 390, height: 800 });
  await expect(fields).toBeVisible();
  expect(await sideways()).toBe(false);
  await page.setViewportSize({ width: 1280, height: 800 });

  // The snippet: shown once, its step ticks too.
  await page.getByRole('button', { name: 'Show the snippet' }).click();
  await expect(page.getByTestId('capture-snippet')).toContainText('?key=sbp_');
  await page.getByRole('link', { name: '← Checklist shop' }).click();
  await expect(checklist).toContainText('2 steps left.');
  await expect(steps.nth(0)).toContainText('Create a submission key (done)');
  await expect(steps.nth(1)).toContainText('Add the website snippet (done)');
});
