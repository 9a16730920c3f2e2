import { createHash } from 'node:crypto';
import { userWithOrganizations } from '@/tests/e2e/helpers';
import { sandboxUrl } from '@/tests/e2e/support/destinationsPage';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * A conversion read from the warehouse, through the pages: the sandbox's demo CRM table
 * (acme-warehouse.crm.qualified_leads: 40 leads over the last 10 days) mapped to a Meta pixel with the
 * preview, read by the worker (every 2 s under `npm test`), its rows in the delivery log and at the
 * sandbox's Meta, and Read now taking nothing twice.
 */

const TABLE = 'acme-warehouse.crm.qualified_leads';
/** The first lead of the demo table: Ada Lovelace, read ten days ago (too old for Meta). */
const FIRST_EMAIL = 'ada.lovelace1@example.com';
/** The newest lead: within Meta's 7 days, so it is delivered. */
const NEWEST_LEAD = 'lead_0040';

test('a BigQuery table mapped to a Meta pixel with the preview: read, delivered, in the log and at the sandbox’s Meta; Read now sends nothing twice', async ({
  page,
  loginPage,
  destinationsPage,
  newConversionPage,
  conversionsPage,
}) => {
  test.setTimeout(180_000);
  const { user, orgIds } = await userWithOrganizations(1);
  const orgId = orgIds[0]!;
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await destinationsPage.connectBigQuery(orgId);
  await destinationsPage.ensureMeta(orgId);

  await newConversionPage.goto(orgId);
  await page.getByRole('radio', { name: /Rows of a BigQuery table/ }).check();
  const reading = page.getByRole('group', { name: 'What to read from BigQuery' });
  await expect(reading.getByLabel('BigQuery project (runs and bills the query)', { exact: true })).toHaveValue('acme-warehouse');

  // A table BigQuery does not know is named in its words, under the field.
  await reading.getByLabel('Table', { exact: true }).fill('acme-warehouse.crm.no_such_table');
  await reading.getByRole('button', { name: 'Load the columns and preview' }).click();
  await expect(reading.getByText(/Not found: Table acme-warehouse:crm\.no_such_table/)).toBeVisible();

  // The real table: its columns of the usual names are mapped, the first 20 rows previewed.
  await reading.getByLabel('Table', { exact: true }).fill(TABLE);
  await reading.getByRole('button', { name: 'Load the columns and preview' }).click();
  const preview = reading.getByRole('table', { name: 'Preview of the first rows' });
  await expect(preview.getByRole('row')).toHaveCount(21);
  await expect(reading.getByLabel('Cursor column', { exact: true })).toHaveValue('updated_at');
  await expect(reading.getByLabel('Event id', { exact: true })).toHaveValue('lead_id');
  await expect(reading.getByLabel('Email', { exact: true })).toHaveValue('email');
  await expect(reading.getByLabel('Google click id (gclid)', { exact: true })).toHaveValue('gclid');
  // No column has a usual event-time name: the table's only timestamp column is taken.
  await expect(reading.getByLabel('Event time (required)', { exact: true })).toHaveValue('updated_at');
  const first = preview.getByRole('row', { name: /lead_0001/ });
  // Hashed where it will be hashed: the email masked, with the start of its SHA-256; never in clear.
  const hash = createHash('sha256').update(FIRST_EMAIL).digest('hex');
  await expect(first).toContainText(`a***@example.com · ${hash.slice(0, 8)}…`);
  await expect(first).toContainText('Will be sent');
  await expect(page.getByText(FIRST_EMAIL)).toHaveCount(0);

  await newConversionPage.continue();
  await expect(newConversionPage.step('Choose a destination')).toBeVisible();
  await page
    .getByRole('radio', { name: /Meta Ads · Sandbox Marketer/ })
    .first()
    .check();
  const account = page.getByLabel('Ad account', { exact: true });
  if (await account.isVisible()) await account.selectOption({ label: 'Acme Shoes (Meta) · 101' });
  await page.getByLabel('Pixel', { exact: true }).selectOption({ label: 'Acme Shoes Pixel · 555000111' });
  await newConversionPage.continue();

  // Rows are chosen by what the source reads: no event-name filter here.
  await expect(newConversionPage.step('Map the events')).toBeVisible();
  await expect(page.getByLabel('Event names to send')).toHaveCount(0);
  await newConversionPage.continue();

  await expect(newConversionPage.step('Review and create')).toBeVisible();
  const summary = page.getByRole('definition');
  await expect(summary.filter({ hasText: `BigQuery table ${TABLE}` })).toBeVisible();
  await expect(summary.filter({ hasText: /^Every hour, rows with updated_at at or past the last read/ })).toBeVisible();
  await expect(page.getByLabel('Name')).toHaveValue('qualified_leads → Acme Shoes Pixel');
  await page.getByRole('button', { name: 'Create conversion' }).click();

  // The first read is due at once: 40 rows read, all events (Meta's check then holds back those older than 7 days).
  await expect(page).toHaveURL(new RegExp(`/${orgId}/conversion/[^/]+/configuration$`));
  const reads = page.getByRole('region', { name: 'Reads from BigQuery' });
  await expect(reads).toContainText(/40 rows read, 40 became events, 0 made none/, { timeout: 60_000 });
  await expect(reads).toContainText(/rows with updated_at ≥ \d{4}-\d{2}-\d{2}/);

  await conversionsPage.openTab('Delivery log');
  const log = conversionsPage.deliveryLog;
  await expect
    .poll(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return log.getByText(/\d+ delivered/).count();
      },
      { timeout: 60_000 },
    )
    .toBeGreaterThan(0);
  await page.getByLabel('Event id').fill(NEWEST_LEAD);
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(log.getByRole('listitem')).toHaveCount(1);
  await log.getByText(/\d+ delivered/).click();
  await expect(log.getByRole('row', { name: new RegExp(NEWEST_LEAD) })).toContainText('Delivered');

  // At the sandbox's Meta: the newest lead once, its email hashed; the first lead (ten days old) not at all.
  const received = async () =>
    (
      (await (await fetch(`${sandboxUrl()}/conversions.json?platform=meta`)).json()) as {
        received: Array<{ target: string; event: { event_id: string; user_data?: { em?: string[] } } }>;
      }
    ).received.filter((entry) => entry.target === '555000111');
  const newest = (await received()).filter((entry) => entry.event.event_id === NEWEST_LEAD);
  expect(newest.length).toBeGreaterThan(0);
  expect(newest[0]!.event.user_data?.em?.[0]).toMatch(/^[0-9a-f]{64}$/);
  expect((await received()).some((entry) => entry.event.event_id === 'lead_0001')).toBe(false);

  // Read now: the read starts from the cursor and finds the last row again, which it already took.
  await conversionsPage.openTab('Overview');
  await reads.getByRole('button', { name: 'Read now' }).click();
  await expect(reads.getByText('A read starts within a minute.')).toBeVisible();
  await expect(reads).toContainText(/1 row read, 0 became events, 0 made none/, { timeout: 60_000 });
});
