import { createApp } from '@/lib/server/repos/apps';
import { createConversion } from '@/lib/server/repos/conversions';
import { recordDelivery } from '@/lib/server/repos/deliveryLog';
import { saveReconciliation } from '@/lib/server/repos/reconciliation';
import { countDay, countedShare, figureScope, type DayFigures } from '@/lib/shared/conversions/reconciliation';
import { userWithOrganizations } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * "Counted by the platform" through the pages, as the reading job stores it (the API tests read it from the
 * sandbox): a Microsoft conversion that lost 2 of 10 events yesterday (refused) and 1 of 4 today, whose goal
 * recorded fewer (attribution: information, not a loss); a Meta conversion that sent 2 Purchase events to a pixel
 * that received 3,456 from all its senders (shown with its scope, never as a ratio); and one not read yet. The
 * loss links to that day's calls in the delivery log; the Reconciliation page lists the worst first.
 */

const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const today = new Date().toISOString().slice(0, 10);

test('the counted section says what the platform received of what was sent, names the scope of its own figures, and links a loss to the log', async ({
  page,
  loginPage,
  appShell,
  conversionsPage,
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
  const microsoft = { destinationId: 'ms-dest', platform: 'microsoft_ads' as const, accountId: '301', targetName: 'Offline purchase' };
  const lossy = await createConversion(orgId, { ...base, name: 'Offline purchases', destination: { ...microsoft, targetId: '8001' } });
  const meta = {
    destinationId: 'meta-dest',
    platform: 'meta_ads' as const,
    accountId: '101',
    targetId: '555000111',
    targetName: 'Acme Shoes Pixel',
  };
  const small = await createConversion(orgId, { ...base, name: 'Purchases to Meta', destination: meta });
  await createConversion(orgId, { ...base, name: 'Leads to Meta', destination: meta });

  const goal = figureScope('microsoft_ads', 'attributed', { events: [], target: 'Offline purchase' })!;
  const lossDays = (
    [
      { date: yesterday, sent: 10, accepted: 8, platform: { received: null, attributed: { count: 5, scope: goal } }, final: true },
      { date: today, sent: 4, accepted: 3, platform: { received: null, attributed: { count: 0, scope: goal } }, final: false },
    ] satisfies DayFigures[]
  ).map((figures) => countDay('microsoft_ads', figures, today));
  await saveReconciliation(
    orgId,
    lossy.id,
    lossDays,
    { state: 'read', message: null, week: countedShare(lossDays, new Date()) },
    new Date(),
  );
  // Today's call: 3 delivered, 1 refused (the loss the day links to).
  await recordDelivery(orgId, lossy.id, {
    test: false,
    latencyMs: 120,
    rows: [
      { id: 'ev-1', status: 'delivered' },
      { id: 'ev-2', status: 'delivered' },
      { id: 'ev-3', status: 'delivered' },
      { id: 'ev-4', status: 'rejected', reason: 'The click id is not a Microsoft click id.' },
    ],
  });

  const scope = (figure: 'received' | 'attributed') =>
    figureScope('meta_ads', figure, { events: ['Purchase'], target: 'Acme Shoes Pixel' })!;
  const pixelDays = [
    countDay(
      'meta_ads',
      {
        date: yesterday,
        sent: 2,
        accepted: 2,
        platform: { received: { count: 3456, scope: scope('received') }, attributed: { count: 3456, scope: scope('attributed') } },
        final: true,
      },
      today,
    ),
  ];
  await saveReconciliation(
    orgId,
    small.id,
    pixelDays,
    { state: 'read', message: null, week: countedShare(pixelDays, new Date()) },
    new Date(),
  );

  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/conversion/${lossy.id}/configuration?tab=counted`);
  const section = page.getByRole('region', { name: 'Counted by the platform' });
  await expect(section.getByTestId('counted-share')).toContainText('80 %');
  await expect(section.getByTestId('counted-share')).toContainText('8 of 10 received');
  const table = section.getByRole('table', { name: 'Counted by Microsoft Advertising, per day' });
  await expect(table.getByTestId('counted-day')).toHaveCount(2);
  const yesterdayRow = table.getByRole('row').filter({ hasText: 'Microsoft refused 2 of the 10 events we sent' });
  await expect(yesterdayRow).toContainText('8 (80 %)');
  // The goal's figure with whose it is; what drives it said once, as information.
  await expect(yesterdayRow).toContainText('5 recorded in goal “Offline purchase”, from every conversion sent to it');
  await expect(section.getByTestId('counted-attribution')).toContainText('information, not a loss, and never alerts');
  const todayRow = table.getByRole('row').filter({ hasText: 'today is not final yet' });
  await expect(todayRow).toContainText('(not final)');

  // Today's loss opens today's calls in the delivery log, with the refused row and its reason.
  await todayRow.getByRole('link', { name: /in the delivery log/ }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]day=${today}`));
  await expect(page.getByRole('tab', { name: 'Delivery log' })).toHaveAttribute('aria-selected', 'true');
  const log = page.getByRole('region', { name: 'Delivery log' });
  await expect(log.getByText(/^Platform calls on .+ \(UTC\)/)).toBeVisible();
  await log.getByText('3 delivered · 1 not sent').click();
  await expect(log.getByText('The platform refused it: The click id is not a Microsoft click id.')).toBeVisible();
  await log.getByRole('button', { name: 'Every day' }).click();
  await expect(page).not.toHaveURL(/[?&]day=/);
  // Back returns to the counted tab the link was followed from.
  await page.goBack();
  await expect(page.getByRole('tab', { name: 'Counted' })).toHaveAttribute('aria-selected', 'true');
  await expect(section.getByTestId('counted-share')).toContainText('80 %');

  // The threshold, in the one alerts form of Settings: a bad value is refused on its field, a good one saved.
  await section.getByRole('link', { name: 'Settings' }).click();
  const alerts = page.getByRole('region', { name: 'Alerts' });
  await expect(alerts.getByRole('button')).toHaveText(['Save threshold']);
  const threshold = alerts.getByLabel('Alert when the share received falls under (%)');
  await threshold.fill('0');
  await alerts.getByRole('button', { name: 'Save threshold' }).click();
  await expect(alerts.getByText('At least 1 %')).toBeVisible();
  await threshold.fill('90');
  await alerts.getByRole('button', { name: 'Save threshold' }).click();
  await expect(alerts.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await conversionsPage.openTab('Counted');
  await expect(section.getByText('under the threshold')).toBeVisible();

  // 2 sent beside the pixel's 3,456 from all its senders: no ratio across them, no loss.
  await page.goto(`/${orgId}/conversion/${small.id}/configuration?tab=counted`);
  const pixel = page.getByRole('region', { name: 'Counted by the platform' });
  const pixelRow = pixel.getByRole('table', { name: 'Counted by Meta Ads, per day' }).getByTestId('counted-day');
  await expect(pixelRow).toContainText('2 (100 %)');
  await expect(pixelRow).toContainText('3,456 Purchase server events at the pixel, from all its server senders');
  await expect(pixelRow).not.toContainText(/172800|\d{4,} %/);
  await expect(pixel.getByTestId('counted-share')).toContainText('100 %');

  await appShell.open('Reconciliation');
  await expect(page.getByRole('heading', { name: 'Reconciliation', level: 1 })).toBeVisible();
  const rows = page.getByTestId('reconciliation-row');
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toContainText('Offline purchases');
  await expect(rows.first()).toContainText('80 %');
  // Saved at 90 above: the list judges each conversion by its own threshold.
  await expect(rows.first()).toContainText('under the threshold');
  await expect(rows.nth(1)).toContainText('Purchases to Meta');
  await expect(rows.nth(2)).toContainText('Not read yet');

  await page.goto(`/${orgId}/conversion`);
  const list = page.getByRole('table', { name: 'Conversions' });
  await expect(list.getByRole('row', { name: /Offline purchases/ })).toContainText('80 %');
  await expect(list.getByRole('row', { name: /Offline purchases/ })).toContainText('under the threshold');
  await expect(list.getByRole('row', { name: /^Leads to Meta/ })).toContainText('Not read yet');
});
