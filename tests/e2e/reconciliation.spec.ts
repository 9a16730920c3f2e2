import { createApp } from '@/lib/server/repos/apps';
import { createConversion } from '@/lib/server/repos/conversions';
import { saveReconciliation } from '@/lib/server/repos/reconciliation';
import { explainDay, type ReconcileDay } from '@/lib/shared/conversions/reconciliation';
import { userWithOrganizations } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * "Counted by the platform" through the pages: a Microsoft conversion whose last read found a day where
 * Microsoft counted 8 of the 10 conversions it accepted (as the reading job stores it; the API tests
 * read it from the sandbox), and another not read yet. The conversion's section shows the day with its
 * ratios and explanation, the Reconciliation page lists the worst first, the conversions list the share.
 */

const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const today = new Date().toISOString().slice(0, 10);

test('the counted section of a conversion, the Reconciliation page and the conversions list show the gap', async ({
  page,
  loginPage,
  appShell,
}) => {
  test.setTimeout(120_000);
  const { user, orgIds } = await userWithOrganizations(1);
  const orgId = orgIds[0]!;
  const app = await createApp(orgId, user.uid, {
    name: 'Shop',
    websiteUrl: 'https://shop.example',
    gtmContainerId: 'GTM-SHOP1',
    payloadUrls: [],
  });
  const base = {
    source: { type: 'app' as const, appId: app.id },
    mapping: { events: [], value: { mode: 'event' as const }, identifiers: ['email' as const, 'clickIds' as const] },
    uid: user.uid,
  };
  const gap = await createConversion(orgId, {
    ...base,
    name: 'Offline purchases',
    destination: {
      destinationId: 'ms-dest',
      platform: 'microsoft_ads',
      accountId: '301',
      targetId: '8001',
      targetName: 'Offline purchase',
    },
  });
  await createConversion(orgId, {
    ...base,
    name: 'Leads to Meta',
    destination: {
      destinationId: 'meta-dest',
      platform: 'meta_ads',
      accountId: '101',
      targetId: '555000111',
      targetName: 'Acme Shoes Pixel',
    },
  });
  const days: ReconcileDay[] = [
    { date: yesterday, received: 10, sent: 10, accepted: 10, platformReceived: null, attributed: 8, final: true },
    { date: today, received: 4, sent: 4, accepted: 4, platformReceived: null, attributed: 0, final: false },
  ].map((day) => ({ ...day, notes: explainDay('microsoft_ads', day, today) }));
  await saveReconciliation(
    orgId,
    gap.id,
    days,
    { state: 'read', message: null, week: { accepted: 10, attributed: 8, share: 0.8 } },
    new Date(),
  );

  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/conversion/${gap.id}/configuration`);
  const section = page.getByRole('region', { name: 'Counted by the platform' });
  await expect(section.getByTestId('counted-share')).toContainText('80 %');
  const table = section.getByRole('table', { name: 'Counted by Microsoft Advertising, per day' });
  await expect(table.getByTestId('counted-day')).toHaveCount(2);
  const gapRow = table.getByRole('row').filter({ hasText: 'Microsoft counted 20 % fewer than it accepted' });
  await expect(gapRow).toContainText('8 (80 %)');
  await expect(table.getByRole('row').filter({ hasText: 'today is not final yet' })).toContainText('(not final)');

  // The threshold: a bad value is refused on its field, a good one saved.
  const threshold = section.getByLabel('Alert when the counted share falls under (%)');
  await threshold.fill('0');
  await section.getByRole('button', { name: 'Save' }).click();
  await expect(section.getByText('At least 1 %')).toBeVisible();
  await threshold.fill('90');
  await section.getByRole('button', { name: 'Save' }).click();
  await expect(section.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await expect(section.getByText('under the threshold')).toBeVisible();

  await appShell.open('Reconciliation');
  await expect(page.getByRole('heading', { name: 'Reconciliation', level: 1 })).toBeVisible();
  const rows = page.getByTestId('reconciliation-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('Offline purchases');
  await expect(rows.first()).toContainText('80 %');
  // Saved at 90 above: the list judges each conversion by its own threshold.
  await expect(rows.first()).toContainText('under the threshold');
  await expect(rows.nth(1)).toContainText('Not read yet');

  await page.goto(`/${orgId}/conversion`);
  const list = page.getByRole('table', { name: 'Conversions' });
  await expect(list.getByRole('row', { name: /Offline purchases/ })).toContainText('80 %');
  await expect(list.getByRole('row', { name: /Offline purchases/ })).toContainText('under the threshold');
  await expect(list.getByRole('row', { name: /Leads to Meta/ })).toContainText('Not read yet');
});
