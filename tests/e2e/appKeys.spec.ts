import { expect, test } from '@playwright/test';
import { createApp } from '@/lib/server/repos/apps';
import { createTestUser, logIn, userWithOrganizations } from '@/tests/e2e/helpers';
import { adminDb } from '@/lib/server/firebaseAdmin';

/**
 * An app's keys on its custom-submission page: the website (publishable) key is replaced or revoked only
 * after a confirmation, by an owner or admin; a member sees the snippet but no key controls.
 */

const APP = { name: 'Key shop', websiteUrl: 'https://keys.example', gtmContainerId: 'GTM-KEYS1', payloadUrls: ['/thanks'] };

test('the website key: replaced, then revoked, each after a confirmation; a new one made again', async ({ page }) => {
  const {
    user,
    orgIds: [orgId],
  } = await userWithOrganizations(1, 'owner');
  const app = await createApp(orgId!, user.uid, APP);
  await logIn(page, user, { landing: `/${orgId}/connection` });
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

test('a member sees the snippet but cannot replace or revoke either key', async ({ page }) => {
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
  await logIn(page, member, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/app/${app.id}/custom-submission`);
  await expect(page.getByText('Owners and admins make, replace and revoke keys.')).toBeVisible();
  await expect(page.getByRole('button', { name: /Create key|Replace key|Revoke key/ })).toHaveCount(0);
  await page.getByRole('button', { name: 'Show the snippet' }).click();
  await expect(page.getByTestId('capture-snippet')).toContainText('?key=sbp_');
  await expect(page.getByRole('button', { name: /website key/ })).toHaveCount(0);
});
