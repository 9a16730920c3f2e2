import { evaluateConversion } from '@/lib/server/alerts/delivery';
import { saveFailureThreshold } from '@/lib/server/repos/alerts';
import { createApp } from '@/lib/server/repos/apps';
import { createConversion } from '@/lib/server/repos/conversions';
import { recordDelivery } from '@/lib/server/repos/deliveryLog';
import { userWithOrganizations } from '@/tests/e2e/helpers';
import { realPath, richOrganization } from '@/tests/e2e/richOrganization';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * Issue 37 §7–9 through the pages. §7: one word per outcome (delivered, not sent, failed, held) on the list, the
 * conversion's figures, the delivery log and the alert, for the same events. §8: none of the retired words a
 * marketer did not use on the main pages. §9: the conversion page's sections are tabs, reached by keyboard
 * (WAI-ARIA tabs) and by address (`?tab=`), Back returns to the tab before, and one alert threshold form.
 */

test('one word per outcome: the list, the overview, the log and the alert name the same events alike (issue 37 §7)', async ({
  page,
  loginPage,
  conversionsPage,
}) => {
  test.setTimeout(90_000);
  const { user, orgIds } = await userWithOrganizations(1);
  const orgId = orgIds[0]!;
  const app = await createApp(orgId, user.uid, { name: 'Shop', websiteUrl: 'https://shop.example', gtmContainerId: null, payloadUrls: [] });
  const conversion = await createConversion(orgId, {
    source: { type: 'app', appId: app.id },
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'clickIds'] },
    uid: user.uid,
    name: 'Leads to Meta',
    destination: {
      destinationId: 'meta-dest',
      platform: 'meta_ads',
      accountId: '101',
      targetId: '555000111',
      targetName: 'Acme Shoes Pixel',
    },
  });
  // One call: 3 delivered, one refused by Meta and one unsendable (both "not sent"), one failed, one held.
  await recordDelivery(orgId, conversion.id, {
    test: false,
    latencyMs: 150,
    rows: [
      { id: 'ev-1', status: 'delivered' },
      { id: 'ev-2', status: 'delivered' },
      { id: 'ev-3', status: 'delivered' },
      { id: 'ev-4', status: 'rejected', reason: 'Invalid parameter: the event time is in the future.' },
      { id: 'ev-5', status: 'not_sent', reason: 'No identifier Meta can match (email, phone, fbc/fbp, or IP with user agent).' },
      { id: 'ev-6', status: 'failed', reason: 'Meta did not answer after several tries.' },
      { id: 'ev-7', status: 'held', reason: 'The destination needs reconnecting.' },
    ],
  });
  // 3 of 6 over the last hour (the held one waits): over a 10 % threshold of at least 5 events.
  await saveFailureThreshold(orgId, conversion.id, { percent: 10, minEvents: 5 });
  await evaluateConversion(orgId, conversion.id);

  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await conversionsPage.goto(orgId);
  const row = conversionsPage.row('Leads to Meta');
  await expect(row.getByTestId('outcome-counts')).toHaveText('3 delivered · 2 not sent · 1 failed');

  await row.getByRole('link', { name: 'Leads to Meta', exact: true }).click();
  // Each figure over its label, the same events as the list's.
  await expect(page.getByRole('group', { name: 'Deliveries' })).toContainText(
    '3Delivered, last 24 h2Not sent, last 24 h1Failed, last 24 h',
  );
  await page.getByText('What delivered, not sent, failed and held mean').click();
  await expect(page.getByTestId('outcome-meanings')).toContainText('Not sentThe event will not reach the platform');

  await conversionsPage.openTab('Delivery log');
  const log = conversionsPage.deliveryLog;
  await log.getByText('3 delivered · 2 not sent · 1 failed · 1 held').click();
  const statuses = log.getByRole('table').locator('td[data-label="Status"]');
  await expect(statuses).toHaveText(['Delivered', 'Delivered', 'Delivered', 'Not sent', 'Not sent', 'Failed', 'Held']);
  // Not sent says why: the platform's refusal, or what the event lacked.
  await expect(log.getByRole('row', { name: /ev-4/ })).toContainText('The platform refused it: Invalid parameter');
  await expect(log.getByRole('row', { name: /ev-5/ })).toContainText('No identifier Meta can match');

  await page.goto(`/${orgId}/notifications`);
  const notice = page.getByTestId('notification').filter({ hasText: 'Leads to Meta' });
  await expect(notice).toContainText('Events are not sent or failed');
  await expect(notice).toContainText('3 of 6 events in the last hour (50 %) were not sent or failed');
  await expect(page.locator('main')).not.toContainText(/refused|rejected/i);
});

test('the conversion page is tabs: by keyboard, by address, Back to the tab before, one threshold form (issue 37 §9)', async ({
  page,
  loginPage,
}) => {
  test.setTimeout(90_000);
  const rich = await richOrganization();
  await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
  const path = realPath('/{org}/conversion/cv-1/configuration', rich);
  await page.goto(path);
  const tablist = page.getByRole('tablist', { name: 'Conversion sections' });
  await expect(tablist.getByRole('tab')).toHaveText(['Overview', 'Delivery log', 'Match quality', 'Counted', 'Settings']);
  const overview = tablist.getByRole('tab', { name: 'Overview' });
  await expect(overview).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tabpanel', { name: 'Overview' })).toContainText('Deliveries, last 48 hours');
  // The test event code is folded beside Send test event, not the first thing on the page.
  await expect(page.getByLabel('Meta test event code (optional)')).toBeHidden();

  // Keyboard: one tab stop; → selects the next tab (and puts it in the address), End the last, Home the first.
  await overview.focus();
  await page.keyboard.press('ArrowRight');
  await expect(tablist.getByRole('tab', { name: 'Delivery log' })).toBeFocused();
  await expect(tablist.getByRole('tab', { name: 'Delivery log' })).toHaveAttribute('aria-selected', 'true');
  await expect(page).toHaveURL(/[?&]tab=log(&|$)/);
  await expect(page.getByRole('tabpanel', { name: 'Delivery log' }).getByRole('list', { name: 'Delivery log' })).toBeVisible();
  await expect(tablist.locator('[role="tab"][tabindex="0"]')).toHaveCount(1);
  await page.keyboard.press('End');
  await expect(tablist.getByRole('tab', { name: 'Settings' })).toBeFocused();
  await expect(page).toHaveURL(/[?&]tab=settings(&|$)/);
  // Settings: one alerts form, one Save, both thresholds in it.
  const alerts = page.getByRole('region', { name: 'Alerts' });
  await expect(page.getByRole('button', { name: 'Save threshold' })).toHaveCount(1);
  await expect(alerts.getByLabel('Share not sent or failed (%)')).toBeVisible();
  await expect(alerts.getByLabel('Alert when the share received falls under (%)')).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(tablist.getByRole('tab', { name: 'Counted' })).toBeFocused();
  await expect(page.getByRole('region', { name: 'Counted by the platform' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Counted by the platform' }).getByRole('button', { name: /Save/ })).toHaveCount(0);
  await page.keyboard.press('Home');
  await expect(overview).toBeFocused();
  // Tab leaves the tablist for the panel.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('tabpanel', { name: 'Overview' })).toBeFocused();

  // Back walks the tabs visited, as the address recorded them.
  await page.goBack();
  await expect(tablist.getByRole('tab', { name: 'Counted' })).toHaveAttribute('aria-selected', 'true');
  await page.goBack();
  await expect(tablist.getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true');

  // By address: each tab opens as linked; a log's day (`?day=`, what a loss in Counted links to) opens the log on that day.
  await page.goto(`${path}?tab=quality`);
  await expect(tablist.getByRole('tab', { name: 'Match quality' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('region', { name: 'Match quality' })).toBeVisible();
  const today = new Date().toISOString().slice(0, 10);
  await page.goto(`${path}?day=${today}`);
  await expect(tablist.getByRole('tab', { name: 'Delivery log' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('region', { name: 'Delivery log' }).getByText(/^Platform calls on .+/)).toBeVisible();
  // An alert sent before the tabs linked to an anchor: it still lands on its section.
  await page.goto(`${path}#counted`);
  await expect(tablist.getByRole('tab', { name: 'Counted' })).toHaveAttribute('aria-selected', 'true');
});

/** Words a marketer did not use (issue 37 §8) and the old outcome words (§7): none is on these pages' rendered text. */
const RETIRED = [
  'Payload URL',
  'Custom submission',
  'Sent / answer',
  'as on the wire',
  'Accepted by the API',
  'system_generated',
  'insert id',
  'Rejected by the platform',
  'Failed (Retry)',
  'Held until Reconnect',
  'being refused',
];

test('the main pages say what things are, not their technical names (issue 37 §8)', async ({ page, loginPage }) => {
  test.setTimeout(120_000);
  const rich = await richOrganization();
  await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
  const pages: Array<{ path: string; ready: string; open?: () => Promise<void> }> = [
    { path: '/{org}/conversion', ready: 'Conversions' },
    { path: '/{org}/conversion/cv-1/configuration', ready: 'Deliveries, last 48 hours' },
    {
      path: '/{org}/conversion/cv-1/configuration?tab=log',
      ready: 'Delivery log',
      open: async () => {
        await page
          .getByRole('list', { name: 'Delivery log' })
          .getByText(/1 delivered/)
          .click();
        await page.getByRole('button', { name: /^What was sent for event evt_1/ }).click();
        await expect(page.getByTestId('row-debugger')).toBeVisible();
      },
    },
    { path: '/{org}/conversion/cv-1/configuration?tab=settings', ready: 'Alerts' },
    { path: '/{org}/app/app-1', ready: 'Events from your server and the website snippet' },
    { path: '/{org}/app/connect', ready: 'Thank-you page paths (one per line)' },
    { path: '/{org}/notifications', ready: 'Notifications' },
  ];
  for (const { path, ready, open } of pages) {
    await page.goto(realPath(path, rich));
    await expect(page.locator('main').getByText(ready).first()).toBeVisible();
    await open?.();
    const text = await page.locator('main').innerText();
    for (const word of RETIRED) expect(text, `${path} says “${word}”`).not.toContain(word);
  }
  // The technical name stays in help text, after what it is.
  await page.goto(realPath('/{org}/app/connect', rich));
  await expect(page.getByText(/\(Technically, the app.s payload URLs\.\)/)).toBeVisible();
});
