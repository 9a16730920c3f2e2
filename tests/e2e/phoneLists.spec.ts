import { type Locator, type Page } from 'playwright/test';
import { FAILED_RUN_MESSAGE, realPath, richOrganization } from '@/tests/e2e/richOrganization';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * Every list at 390 px, in an organization with something in each: one card per row, the columns a
 * marketer looks for (Status, Next run, Role, Last read, what a counted day means, the actions) on screen
 * without scrolling sideways, and a failed run's message inside its card. A screenshot of each list goes to
 * the test's output folder. The shell's unread count shows on the folded menu's button; the delivery log
 * keeps its words whole on a wide screen and is a card per event on a phone.
 */

const PHONE = { width: 390, height: 844 };

const LISTS: Array<{ name: string; path: string; table: string; columns: string[]; action?: string }> = [
  {
    name: 'connections',
    path: '/{org}/connection',
    table: 'Connections',
    columns: ['Status', 'Last run', 'Next run'],
    action: 'Configure',
  },
  { name: 'sources', path: '/{org}/source', table: 'Sources', columns: ['Platform', 'Status'], action: 'Configure' },
  { name: 'destinations', path: '/{org}/destination', table: 'Destinations', columns: ['Platform', 'Status'], action: 'Configure' },
  { name: 'conversions', path: '/{org}/conversion', table: 'Conversions', columns: ['Status', 'Last 24 h'], action: 'Configure' },
  { name: 'apps', path: '/{org}/app', table: 'Apps', columns: ['Website', 'Conversions go to'], action: 'Configure' },
  { name: 'payments', path: '/{org}/payment', table: 'Payment accounts', columns: ['Mode', 'Connected'], action: 'Configure' },
  { name: 'members', path: '/{org}/settings', table: 'Team members', columns: ['Email', 'Role'] },
  { name: 'invitations', path: '/{org}/settings', table: 'Invitations', columns: ['Role', 'Status', 'Expires'], action: 'Revoke' },
  { name: 'run-history', path: '/{org}/connection/c-1/configuration', table: 'Run history', columns: ['Days', 'Outcome'] },
  {
    name: 'reconciliation',
    path: '/{org}/reconciliation',
    table: 'Share received per conversion',
    columns: ['Platform', 'Received, last 7 days', 'Last read'],
  },
  {
    name: 'counted',
    path: '/{org}/conversion/cv-1/configuration?tab=counted',
    table: 'Counted by Meta Ads, per day',
    columns: ['Sent', 'Received by Meta Ads', 'Not received', 'What Meta Ads reports (all its senders)', 'What it means'],
  },
];

/** Wholly on screen, left to right. */
async function expectOnScreen(locator: Locator) {
  await expect(locator).toBeVisible();
  const box = (await locator.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
}

const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

test('at 390 px every list is a column of cards whose status, role, next run and actions are on screen', async ({ page, loginPage }) => {
  test.setTimeout(180_000);
  const rich = await richOrganization();
  await page.setViewportSize(PHONE);
  await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
  for (const list of LISTS) {
    await test.step(list.name, async () => {
      await page.goto(realPath(list.path, rich));
      const table = page.getByRole('table', { name: list.table });
      const rows = table.locator('tbody tr');
      await expect(rows.first()).toBeVisible();
      expect(await scrollsSideways(page)).toBe(false);
      // Nothing hides in the table's own scrolling box either.
      expect(await table.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);
      for (const row of await rows.all()) {
        for (const column of list.columns) {
          const cell = row.locator(`td[data-label="${column}"]`);
          await expectOnScreen(cell);
          // The column's name is written beside its value.
          expect(await cell.evaluate((element) => getComputedStyle(element, '::before').content)).toBe(`"${column}"`);
        }
      }
      if (list.action) await expectOnScreen(table.getByRole('button', { name: list.action }).first());
      await table.screenshot({ path: test.info().outputPath(`${list.name}-390.png`) });
    });
  }
  // The failed run's message is in its card, not in a column off the screen.
  await page.goto(realPath('/{org}/connection/c-1/configuration', rich));
  const failed = page.getByRole('table', { name: 'Run history' }).getByRole('row').filter({ hasText: 'Failed' });
  await expectOnScreen(failed.getByText(FAILED_RUN_MESSAGE).first());
  expect(await scrollsSideways(page)).toBe(false);
});

test('on a wide screen a list is a table again, its actions on the line of the other cells', async ({ page, loginPage }) => {
  const rich = await richOrganization();
  await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
  await page.goto(`/${rich.orgId}/source`);
  const table = page.getByRole('table', { name: 'Sources' });
  await expect(table.locator('thead')).toBeVisible();
  for (const row of await table.locator('tbody tr').all()) {
    const status = (await row.locator('td[data-label="Status"]').boundingBox())!;
    const actions = (await row.locator('td.actions').boundingBox())!;
    // One line: the same top and height as the row's other cells.
    expect(Math.abs(actions.y - status.y)).toBeLessThanOrEqual(1);
    expect(Math.abs(actions.height - status.height)).toBeLessThanOrEqual(1);
  }
});

/** How many lines the element's text takes (the distinct tops of its text's boxes). */
const linesOf = (locator: Locator) =>
  locator.evaluate((element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    return new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top))).size;
  });

test('at 390 px the unread alerts are counted on the folded Menu button', async ({ page, loginPage }) => {
  const rich = await richOrganization();
  await page.setViewportSize(PHONE);
  await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeHidden();
  const menu = page.getByRole('button', { name: 'Menu 1 unread' });
  await expectOnScreen(menu.getByTestId('menu-unread-count'));
  await expect(menu.getByTestId('menu-unread-count')).toHaveText('1');
  await menu.click();
  await expect(nav.getByTestId('unread-count')).toHaveText('1');
});

test('the delivery log keeps its words whole at 1280 px and is a card per event at 390 px', async ({ page, loginPage }) => {
  const rich = await richOrganization();
  await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
  await page.goto(realPath('/{org}/conversion/cv-1/configuration?tab=log', rich));
  const log = page.getByRole('list', { name: 'Delivery log' });
  await log.getByText(/1 delivered/).click();
  const events = log.getByRole('table');
  for (const word of ['Delivered', 'a***@store.example', 'g***@store.example', 'Event id']) {
    expect(await linesOf(events.getByText(word, { exact: true })), word).toBe(1);
  }
  // The refused row and the unsendable one are both "Not sent" (issue 37 §7), each on one line.
  for (const badge of await events.getByText('Not sent', { exact: true }).all()) expect(await linesOf(badge)).toBe(1);
  await events.screenshot({ path: test.info().outputPath('delivery-log-1280.png') });

  await page.setViewportSize(PHONE);
  expect(await scrollsSideways(page)).toBe(false);
  for (const row of await events.locator('tbody tr').all()) {
    // The event id is the card's title, on one line, not a letter a line.
    expect(await linesOf(row.locator('td').first().locator('code'))).toBe(1);
    for (const column of ['Email', 'Status', 'Reason']) await expectOnScreen(row.locator(`td[data-label="${column}"]`));
    await expectOnScreen(row.getByRole('button', { name: /^What was sent/ }));
  }
  expect(await linesOf(events.getByText('Delivered', { exact: true }))).toBe(1);
  expect(await linesOf(events.getByText('g***@store.example', { exact: true }))).toBe(1);
  await events.screenshot({ path: test.info().outputPath('delivery-log-390.png') });
});
