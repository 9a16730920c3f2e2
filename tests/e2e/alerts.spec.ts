import { FieldValue } from 'firebase-admin/firestore';
import { raiseAlert } from '@/lib/server/alerts';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { createTestOrganization, createTestUser } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';

// The shell counts unread alert notices; the list links each one to its object and marks them read.
test('the unread count in the shell, the notifications list with links, mark read, and email settings', async ({ page, loginPage }) => {
  const user = await createTestUser();
  const orgId = await createTestOrganization([[user, 'owner']]);
  const destination = adminDb().collection('organizations').doc(orgId).collection('destinations').doc('meta-dest');
  await destination.set({
    platform: 'meta_ads',
    name: 'Meta · Shoes',
    status: 'needs_reauth',
    accounts: [],
    created_at: FieldValue.serverTimestamp(),
  });
  await raiseAlert({
    orgId,
    kind: 'needs_reauth',
    subject: { type: 'destination', id: 'meta-dest' },
    message: 'Meta Ads has disconnected SignalBridge from this account. Reconnect to keep your data flowing.',
  });
  await raiseAlert({
    orgId,
    kind: 'paused_by_plan',
    subject: { type: 'organization', id: orgId },
    message: 'Two connections were paused.',
  });

  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByTestId('unread-count')).toHaveText('2');

  await nav.getByTestId('nav-notifications').click();
  await expect(page).toHaveURL(`/${orgId}/notifications`);
  const notices = page.getByTestId('notification');
  await expect(notices).toHaveCount(2);
  const reauth = page.getByRole('link', { name: 'A login needs reconnecting: Meta · Shoes' });
  await expect(reauth).toHaveAttribute('href', `/${orgId}/destination/meta-dest/configuration`);
  await expect(page.getByRole('link', { name: /paused by a plan change/ })).toHaveAttribute('href', `/${orgId}/settings`);

  await notices.filter({ hasText: 'Two connections were paused.' }).getByRole('button', { name: 'Mark as read' }).click();
  await expect(nav.getByTestId('unread-count')).toHaveText('1');

  // Email settings are the person's own, and stay as set.
  const reauthEmails = page.getByRole('checkbox', { name: 'A login needs reconnecting' });
  await expect(reauthEmails).toBeChecked();
  await reauthEmails.uncheck();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();

  await reauth.click();
  await expect(page).toHaveURL(`/${orgId}/destination/meta-dest/configuration`);
  await expect(nav.getByTestId('unread-count')).toHaveCount(0);

  await page.goto(`/${orgId}/notifications`);
  await expect(page.getByRole('checkbox', { name: 'A login needs reconnecting' })).not.toBeChecked();
  await expect(page.getByRole('button', { name: 'Mark all as read' })).toHaveCount(0);
});

test('an organization with no alerts says so', async ({ page, loginPage }) => {
  const user = await createTestUser();
  const orgId = await createTestOrganization([[user, 'owner']]);
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/notifications`);
  await expect(page.getByTestId('empty-state')).toContainText('Nothing has stopped');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByTestId('unread-count')).toHaveCount(0);
});
