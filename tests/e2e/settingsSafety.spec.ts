import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { expect, test } from '@/tests/e2e/support/fixtures';
import { ON_SCALE, signedInOwner } from '@/tests/e2e/support/signedIn';

/**
 * Unticking an ad account a connection reads says which connection before anything is saved; Cancel
 * saves nothing, and confirming takes the account out of the connection too, so no run fails on it.
 */

test('unticking an account a connection uses names the connection, and confirming takes it out of it', async ({ page, loginPage }) => {
  test.setTimeout(120_000);
  const { user, orgId } = await signedInOwner(loginPage, ON_SCALE);
  await page.goto(`/${orgId}/source`);
  await page.getByRole('button', { name: 'Connect Google Ads' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect(page).toHaveURL(new RegExp(`/${orgId}/source/[^/]+/google/configuration\\?connected=1$`));
  await page.getByRole('checkbox', { name: /Acme Shoes/ }).check();
  await page.getByRole('checkbox', { name: /Sandbox Direct Store/ }).check();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(page.getByText('Saved: 2 accounts.')).toBeVisible();
  const sourceId = /\/source\/([^/]+)\//.exec(page.url())![1]!;

  // A connection reading both accounts (as the connection form makes it).
  const connection = adminDb().collection('organizations').doc(orgId).collection('connections').doc();
  await connection.set({
    name: 'Nightly spend',
    source_id: sourceId,
    source: {
      platform: 'google_ads',
      accounts: [
        { id: '1234567890', name: 'Acme Shoes' },
        { id: '5556667778', name: 'Sandbox Direct Store' },
      ],
    },
    destination_id: 'dest-1',
    destination: { platform: 'bigquery', project_id: 'acme-warehouse', dataset: 'signalbridge', table: 'ad_performance' },
    level: 'campaign',
    schedule: { every: 'daily', at: '06:00', time_zone: 'UTC' },
    lookback_days: 14,
    status: 'active',
    status_reason: null,
    next_run_at: Timestamp.fromMillis(Date.now() + 86_400_000),
    last_run: null,
    running_run_id: null,
    backfill_run_id: null,
    created_by: user.uid,
    created_at: FieldValue.serverTimestamp(),
  });
  const accountsOfConnection = async () =>
    ((await connection.get()).get('source.accounts') as Array<{ id: string }>).map((account) => account.id);

  await page.getByRole('checkbox', { name: /Sandbox Direct Store/ }).uncheck();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  const dialog = page.getByRole('dialog', { name: 'Take the accounts out of their connections?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('The connection "Nightly spend" uses "Sandbox Direct Store" (5556667778)');
  await expect(page.getByText(/^Saved:/)).toHaveCount(0);

  // Cancel saves nothing.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(await accountsOfConnection()).toEqual(['1234567890', '5556667778']);

  await page.getByRole('button', { name: 'Save accounts' }).click();
  await dialog.getByRole('button', { name: 'Take them out and save' }).click();
  await expect(page.getByText('Saved: 1 account.')).toBeVisible();
  expect(await accountsOfConnection()).toEqual(['1234567890']);
});
