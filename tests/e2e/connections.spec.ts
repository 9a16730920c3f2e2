import { realPath, richOrganization } from '@/tests/e2e/richOrganization';
import { expect, test } from '@/tests/e2e/support/fixtures';
import { ON_SCALE, signedInOwner } from '@/tests/e2e/support/signedIn';

/**
 * Connections through the pages: the first-run guide of an empty organization, a Google Ads → BigQuery
 * connection created with the form, its first run and Run now in the history, a historical backfill
 * watched to the end (an organization on Scale), and the dry-run test page. The Google Ads source is
 * connected through the sandbox's consent page; BigQuery with the sandbox's service-account key.
 */

test('an empty organization sees the three-step guide, whose last step opens once a source and a destination exist', async ({
  page,
  loginPage,
  connectionsPage,
  newConnectionPage,
}) => {
  const { orgId } = await signedInOwner(loginPage);
  await expect(connectionsPage.heading).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Get started in three steps' })).toBeVisible();
  const steps = connectionsPage.guideSteps;
  await expect(steps).toHaveCount(3);
  await expect(steps.nth(0)).toContainText('Connect an ad platform (to do)');
  await expect(steps.nth(1)).toContainText('Connect a destination (to do)');
  await expect(steps.nth(2)).toContainText('Create the connection (waiting for the steps above)');
  await expect(connectionsPage.createLink).toHaveAttribute('aria-disabled', 'true');
  await expect(page.getByRole('link', { name: 'Connect a source' })).toHaveAttribute('href', `/${orgId}/source`);
  await page.getByRole('link', { name: 'Connect a destination' }).click();
  await expect(page).toHaveURL(`/${orgId}/destination`);

  // /createConnection without them says what to connect.
  await newConnectionPage.goto(orgId);
  await expect(page.getByText('Connect an ad platform as a source and BigQuery or Mixpanel as a destination first.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Go to sources' })).toHaveAttribute('href', `/${orgId}/source`);
});

test('Google Ads → BigQuery: created with the form, runs, Run now, a backfill to 100 %, and the dry-run preview', async ({
  page,
  loginPage,
  appShell,
  sourcesPage,
  destinationsPage,
  connectionsPage,
  newConnectionPage,
  connectionPage,
}) => {
  test.setTimeout(240_000);
  const { orgId } = await signedInOwner(loginPage, ON_SCALE);
  await sourcesPage.connectGoogleAds(orgId);
  await destinationsPage.connectBigQuery(orgId);

  // Both steps of the guide are done; the third leads to the form.
  await connectionsPage.goto(orgId);
  const steps = connectionsPage.guideSteps;
  await expect(steps.nth(0)).toContainText('(done)');
  await expect(steps.nth(1)).toContainText('(done)');
  await connectionsPage.createLink.click();
  await expect(page).toHaveURL(`/${orgId}/createConnection`);

  // Create without choices names what is missing, on the fields.
  await newConnectionPage.submit();
  await expect(page.getByText('Choose a source')).toBeVisible();
  await expect(page.getByText('Choose a destination')).toBeVisible();
  await expect(newConnectionPage.source).toBeFocused();

  const name = `Ads to warehouse ${Date.now().toString(36)}`;
  await newConnectionPage.choose({ accounts: [/Acme Shoes/], level: 'campaign', name });
  await expect(newConnectionPage.lookback).toHaveValue('14');
  await expect(page.getByLabel('BigQuery project')).toHaveValue('acme-warehouse');
  await expect(page.getByLabel('Dataset')).toHaveValue('signalbridge');
  await expect(page.getByLabel('Table')).toHaveValue('ad_performance');
  // Scale includes every schedule; daily keeps the test's worker quiet after the first run.
  await expect(newConnectionPage.fifteenMinutes).toBeEnabled();
  await expect(page.getByLabel('Time zone')).not.toHaveValue('');
  await newConnectionPage.submit();

  await expect(page).toHaveURL(new RegExp(`/${orgId}/connection/[^/]+/configuration$`));
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByText('Google Ads (1 ad account) → BigQuery acme-warehouse.signalbridge.ad_performance')).toBeVisible();

  // The first run is due at once: the worker picks it up and the page shows its result without a reload.
  const firstRun = connectionPage.runs('Scheduled');
  await expect(firstRun.filter({ hasText: 'Succeeded' })).toHaveCount(1, { timeout: 60_000 });

  // Run now: a second run, of kind "Run now", succeeds with rows written.
  await expect(connectionPage.runNowButton).toBeEnabled({ timeout: 30_000 });
  await connectionPage.runNowButton.click();
  await expect(page.getByRole('status').filter({ hasText: 'Run started.' })).toBeVisible();
  const manual = connectionPage.runs('Run now');
  await expect(manual.filter({ hasText: 'Succeeded' })).toHaveCount(1, { timeout: 60_000 });
  const rows = (await manual.getByRole('cell').nth(3).textContent())!;
  const [read, written] = rows.split('/').map((part) => Number(part.replace(/\D/g, '')));
  expect(read).toBeGreaterThan(0);
  expect(written).toBe(read);
  await expect(page.getByRole('img', { name: 'Spend in USD per day, stacked by account' })).toBeVisible();

  // A backfill of about three months: its chunk count first, then the bar to 100 %.
  const from = new Date(Date.now() - 100 * 86_400_000).toISOString().slice(0, 10);
  await connectionPage.backfillFrom.fill(from);
  await expect(page.getByTestId('backfill-preview')).toContainText(/\d+ chunks of up to 30 days/);
  await connectionPage.startBackfillButton.click();
  const bar = page.getByRole('progressbar', { name: 'Backfill progress' });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute('aria-valuenow', '100', { timeout: 120_000 });
  await expect(page.getByText('Backfill complete:')).toBeVisible();
  await expect(connectionPage.runs('Backfill').filter({ hasText: 'Succeeded' })).toHaveCount(1);

  // Settings: the edit form loads when it is asked for, and a saved change shows at once.
  await page.getByRole('button', { name: 'Edit settings' }).click();
  const edit = page.getByRole('form', { name: 'Edit the connection' });
  await expect(edit.getByLabel('Name', { exact: true })).toHaveValue(name);
  await edit.getByLabel('Lookback (days)').fill('7');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Each run re-reads the last 7 days.')).toBeVisible();

  // The dry run: the rows one account would write, and the destination's check. Nothing is written.
  await page.getByRole('link', { name: 'Test (dry run)' }).click();
  await expect(page).toHaveURL(new RegExp(`/${orgId}/connection/[^/]+/test1$`));
  await expect(page.getByRole('heading', { name: 'Test connection', level: 1 })).toBeVisible();
  await expect(page.getByText('Writes nothing.')).toBeVisible();
  await expect(page.getByLabel('Ad account')).toHaveValue('1234567890');
  await page.getByRole('button', { name: 'Run test' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Destination ready.' })).toBeVisible({ timeout: 30_000 });
  const preview = page.getByRole('table', { name: 'Rows that would be written' });
  await expect(preview).toBeVisible();
  await expect(preview.getByRole('row').nth(1)).toContainText('Acme Shoes');
  await expect(preview.getByRole('row').nth(1)).toContainText('$');
  await expect(page.getByTestId('test-summary')).toContainText(
    /Google Ads answered \d+ rows? for Acme Shoes .* in \d+ API calls?\. Nothing was written\./,
  );

  // The list shows it with its route, schedule and last run.
  await appShell.open('Connections');
  const row = connectionsPage.row(name);
  await expect(row).toContainText('Google Ads (1 ad account) → BigQuery');
  await expect(row).toContainText('Daily at 06:00');
  await expect(row).toContainText('Active');
  await expect(row).toContainText('Succeeded');
});

test('on Growth, a backfill is disabled and names the plan that has it; the 15-minute schedule is too', async ({
  page,
  loginPage,
  sourcesPage,
  destinationsPage,
  newConnectionPage,
  connectionPage,
}) => {
  test.setTimeout(120_000);
  const { orgId } = await signedInOwner(loginPage);
  await sourcesPage.connectGoogleAds(orgId);
  await destinationsPage.connectBigQuery(orgId);

  await newConnectionPage.goto(orgId);
  await expect(newConnectionPage.fifteenMinutes).toBeDisabled();
  await expect(newConnectionPage.fifteenMinutes).toHaveText('Every 15 minutes (Scale plan)');
  await expect(page.getByText('Every 15 minutes is included in Scale.')).toBeVisible();
  await newConnectionPage.create({ accounts: [/Acme Shoes/] });
  await expect(page).toHaveURL(new RegExp(`/${orgId}/connection/[^/]+/configuration$`));

  await expect(page.getByText('Historical backfills are included in the Scale plan.')).toBeVisible();
  await expect(connectionPage.backfillFrom).toBeDisabled();
  await expect(connectionPage.startBackfillButton).toBeDisabled();
});

test('the time zone is picked from the IANA zones by typing part of a city, with the keyboard alone', async ({ page, loginPage }) => {
  const rich = await richOrganization();
  await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
  await page.goto(realPath('/{org}/connection/c-1/configuration', rich));
  await page.getByRole('button', { name: 'Edit settings' }).click();
  const edit = page.getByRole('form', { name: 'Edit the connection' });
  const zone = edit.getByRole('combobox', { name: 'Time zone' });
  const list = edit.getByRole('listbox', { name: 'Suggestions' });
  await expect(zone).toHaveValue('UTC');

  // Typed words narrow the list ("new york" finds America/New_York); ↓ reaches it, Enter picks it.
  await zone.fill('');
  await zone.pressSequentially('new york');
  await expect(zone).toHaveAttribute('aria-expanded', 'true');
  await expect(list.getByRole('option')).toHaveText([/^America\/New_York UTC-0[45]:00$/]);
  await zone.press('ArrowDown');
  await expect(list.getByRole('option', { selected: true })).toHaveText(/^America\/New_York/);
  await expect(zone).toHaveAttribute('aria-activedescendant', (await list.getByRole('option').first().getAttribute('id'))!);
  await zone.press('Enter');
  await expect(zone).toHaveValue('America/New_York');
  await expect(list).toBeHidden();
  await expect(edit).toBeVisible();

  // ↓ opens the whole list on the current zone; Escape closes the list, not the form.
  await zone.press('ArrowDown');
  expect(await list.getByRole('option').count()).toBeGreaterThan(400);
  await expect(list.getByRole('option', { selected: true })).toHaveText(/^America\/New_York/);
  await zone.press('Escape');
  await expect(list).toBeHidden();
  await expect(zone).toBeFocused();

  // A zone typed in another case is written as the list spells it once the field is left.
  await zone.fill('europe/paris');
  await zone.press('Tab');
  await expect(zone).toHaveValue('Europe/Paris');

  // What is no time zone finds nothing, and the form says so on the field instead of saving it.
  await zone.fill('Atlantis');
  await expect(list).toBeHidden();
  await expect(edit.getByRole('status').filter({ hasText: '0 time zones' })).toBeAttached();
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit.getByText('A time zone such as Europe/Berlin')).toBeVisible();
  await expect(zone).toHaveAttribute('aria-invalid', 'true');

  await zone.fill('toky');
  await zone.press('ArrowDown');
  await zone.press('Enter');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Daily at 06:00 (Asia/Tokyo)').first()).toBeVisible();
});
