import { readFile } from 'node:fs/promises';
import { Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { lookbackWindow } from '@/lib/shared/connections/windows';
import { realPath, richOrganization } from '@/tests/e2e/richOrganization';
import { DEMO } from '@/scripts/lib/demo';
import { demoAppConversion } from '@/tests/e2e/support/demoConversion';
import { expect, test } from '@/tests/e2e/support/fixtures';
import { ON_SCALE, signedInOwner } from '@/tests/e2e/support/signedIn';

/**
 * Issue 25, "Charts and runs" and "A per-row debugger": a connection of a USD and a EUR account gets one
 * spend chart per currency; a run opens on its own page (per account rows, calls, time); the history
 * downloads as CSV; a delivery log row opens to the event as sent and Meta's answer, after a test event
 * sent with Meta's test event code.
 */

test('a USD and a EUR account: one spend chart per currency; a run opens with each account; the history downloads as CSV', async ({
  page,
  loginPage,
  sourcesPage,
  destinationsPage,
  newConnectionPage,
  connectionPage,
}) => {
  test.setTimeout(240_000);
  const { orgId } = await signedInOwner(loginPage, ON_SCALE);
  // Acme Shoes spends in USD, Sandbox Direct Store in EUR.
  const twoCurrencies = [/Acme Shoes/, /Sandbox Direct Store/];
  await sourcesPage.connectGoogleAds(orgId, twoCurrencies);
  await destinationsPage.connectBigQuery(orgId);

  await newConnectionPage.goto(orgId);
  const name = `Two currencies ${Date.now().toString(36)}`;
  await newConnectionPage.create({ accounts: twoCurrencies, level: 'campaign', lookbackDays: 5, name });
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

  // The first run (due at once) ends; its days are the 5 lookback days, both ends included.
  const run = connectionPage.runs('Scheduled');
  await expect(run.filter({ hasText: 'Succeeded' })).toHaveCount(1, { timeout: 90_000 });
  const days = (await run.getByRole('cell').nth(2).textContent())!.split(' – ');
  expect(days).toHaveLength(2);
  expect(Math.round((Date.parse(days[1]!) - Date.parse(days[0]!)) / 86_400_000) + 1).toBe(5);

  // Never USD + EUR in one bar: a chart per currency, each named by it.
  await expect(page.getByRole('img', { name: 'Spend in EUR per day, stacked by account' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'Spend in USD per day, stacked by account' })).toBeVisible();
  await expect(page.getByText('The accounts spend in 2 currencies')).toBeVisible();

  // The history as CSV: a header and the run.
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const download = await downloading;
  const csv = await readFile((await download.path())!, 'utf8');
  const lines = csv.trimEnd().split('\r\n');
  expect(lines[0]).toMatch(/^run_id,kind,outcome,started_at,finished_at,first_day,last_day,rows_read,rows_written,api_calls/);
  expect(lines.slice(1).some((line) => /,scheduled,succeeded,/.test(line))).toBe(true);

  // The run opens on its own page: each account's rows, calls and time.
  await run.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/${orgId}/connection/[^/]+/runs/[^/]+$`));
  await expect(page.getByRole('heading', { name: /^Scheduled run of / })).toBeVisible();
  const accounts = page.getByRole('table', { name: 'Accounts of the run' });
  for (const account of ['Acme Shoes (1234567890)', 'Sandbox Direct Store (5556667778)']) {
    const row = accounts.getByRole('row', { name: new RegExp(account.replace(/[()]/g, '\\$&')) });
    await expect(row).toBeVisible();
    const cells = row.getByRole('cell');
    expect(Number((await cells.nth(0).textContent())!.replace(/\D/g, ''))).toBeGreaterThan(0);
    expect(Number((await cells.nth(2).textContent())!.replace(/\D/g, ''))).toBeGreaterThan(0);
    await expect(cells.nth(3)).toHaveText(/\d+ (ms|s)/);
    await expect(cells.nth(4)).toHaveText('None');
  }
  await page.getByRole('link', { name: `← ${name}` }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
});

test("a delivery log row opens to the event as sent (hashed) and Meta's answer; the test went with Meta's test event code", async ({
  page,
  loginPage,
  conversionsPage,
}) => {
  test.setTimeout(120_000);
  const org = DEMO.orgId;
  const suffix = Date.now().toString(36);
  const { conversionId } = await demoAppConversion(
    { name: `Debugger store ${suffix}`, websiteUrl: 'https://debugger.example', gtmContainerId: 'GTM-DEBUG1' },
    { name: `Debugger leads ${suffix}`, events: ['Lead', 'Purchase'], identifiers: ['email', 'phone', 'clickIds', 'context'] },
  );
  await loginPage.logIn(DEMO, { landing: `/${org}/connection` });
  await conversionsPage.open(org, conversionId);
  await expect(page.getByRole('heading', { name: `Debugger leads ${suffix}`, level: 1 })).toBeVisible();

  // A code Events Manager would never give is refused on its field (the code is folded beside Send test event).
  await page.getByText('Send it under a Meta test event code (optional)').click();
  const code = page.getByLabel('Meta test event code (optional)');
  await code.fill('TEST 1');
  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(page.getByText('Letters, digits, _ and - only', { exact: false })).toBeVisible();
  await code.fill('TEST54321');
  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Delivered.' })).toBeVisible();

  await page.getByRole('link', { name: 'See it in the delivery log' }).click();
  const line = conversionsPage.deliveryLog.getByRole('listitem').filter({ hasText: 'Test' });
  await line.getByText('1 delivered').click();
  const open = line.getByRole('button', { name: /^What was sent for event test_/ });
  await open.click();
  await expect(line.getByRole('button', { name: /^Hide for event test_/ })).toHaveAttribute('aria-expanded', 'true');
  const sent = line.getByTestId('row-sent');
  await expect(sent).toContainText('"event_name": "Lead"');
  await expect(sent).toContainText('"action_source": "website"');
  // The email as it left: SHA-256 hex, never the address.
  await expect(sent).toContainText(/"em": \[\s*"[0-9a-f]{64}"/);
  await expect(sent).not.toContainText('@');
  // Meta answers for the whole call (nothing about the row alone): that answer, kept once per record.
  await expect(line.getByTestId('row-request-answer')).toContainText('"events_received": 1');
  await expect(line.getByRole('region', { name: 'The platform’s answer to the whole call' })).toBeVisible();
  await expect(line.getByTestId('row-answer')).toHaveCount(0);
});

test("a run's days name the connection's time zone, and say why its rows can start a day earlier", async ({ page, loginPage }) => {
  const rich = await richOrganization();
  // A scheduled run started at 01:30 UTC on Nov 29: it asked for every day begun anywhere (Nov 1 – Nov 29),
  // while in UTC, the connection's time zone, its 28 lookback days are Nov 2 – Nov 29.
  const startedAt = new Date('2025-11-29T01:30:00Z');
  const read = lookbackWindow(28, startedAt);
  expect(read).toEqual({ from: '2025-11-01', to: '2025-11-29' });
  const runs = adminDb().collection(`organizations/${rich.orgId}/connections/${rich.ids['c-1']}/runs`);
  const run = runs.doc();
  await run.set({
    kind: 'scheduled',
    outcome: 'succeeded',
    ...read,
    started_at: Timestamp.fromDate(startedAt),
    finished_at: Timestamp.fromMillis(startedAt.getTime() + 40_000),
    jobs_total: 1,
    jobs_done: 1,
    rows_read: 28,
    rows_written: 28,
    calls: 1,
    accounts: {},
    jobs: {},
    error: null,
  });
  await loginPage.logIn(rich.user, { landing: `/${rich.orgId}/connection` });
  await page.goto(realPath('/{org}/connection/c-1/configuration', rich));
  await expect(page.getByTestId('runs-time-zone')).toHaveText(
    "A run's days are counted in UTC, the connection's time zone; each ad account dates its rows in its own, so they can start or end a day apart.",
  );
  await page.goto(`/${rich.orgId}/connection/${rich.ids['c-1']}/runs/${run.id}`);
  const days = page.getByRole('definition').filter({ hasText: "the connection's time zone" });
  await expect(days).toContainText("Nov 2, 2025 – Nov 29, 2025 in UTC, the connection's time zone");
  await expect(page.getByTestId('account-days')).toHaveText(
    "Each ad account dates its rows in its own time zone: to have all of these days in every account's, the run read Nov 1, 2025 – Nov 29, 2025, so its rows can start or end a day apart.",
  );
});
