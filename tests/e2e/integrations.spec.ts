import { createHash } from 'node:crypto';
import { type Page } from 'playwright/test';
import { createConversion } from '@/lib/server/repos/conversions';
import { DEMO } from '@/scripts/lib/demo';
import { createTestOrganization, createTestUser, fakeCustomerIo, userWithOrganizations } from '@/tests/e2e/helpers';
import type { RecordedEvent } from '@/sandbox/customerio';
import { SANDBOX_MIXPANEL } from '@/sandbox/platforms';
import { LoginPage } from '@/tests/e2e/support/authPages';
import { expect, test } from '@/tests/e2e/support/fixtures';

/** The platform sandbox `npm test` started; its consent pages are real pages on another origin. */
const sandbox = () => process.env.NEXT_PUBLIC_PLATFORM_SANDBOX_URL!;

/** The analytics events the server recorded for one person, in order. */
async function eventsOf(page: Page, uid: string) {
  return (await fakeCustomerIo<RecordedEvent[]>(page, 'events')).filter((event) => event.customerId === uid).map((event) => event.name);
}

async function signedInOwner(page: Page) {
  const { user, orgIds } = await userWithOrganizations(1);
  const orgId = orgIds[0]!;
  await new LoginPage(page).logIn(user, { landing: `/${orgId}/connection` });
  return { user, orgId };
}

/** Clicks through the sandbox's consent screen as the marketer would. */
async function allowOnConsentScreen(page: Page, provider: 'Google' | 'Facebook' | 'Microsoft' | 'LinkedIn' | 'TikTok For Business') {
  await expect(page.getByRole('heading', { name: `SignalBridge wants to access your ${provider} account` })).toBeVisible();
  await page.getByRole('button', { name: 'Allow' }).click();
}

// Revoking in the sandbox kills every Google login it holds (one marketer, as when they remove our access), so
// the tests that need a live Google login run one after the other, never beside the revocation.
test.describe.serial('Google logins', () => {
  test('Google Ads: connect through the consent screen, pick accounts under a manager, reconnect after the login is revoked', async ({
    page,
  }) => {
    const { user, orgId } = await signedInOwner(page);
    await page.goto(`/${orgId}/source`);
    await expect(page.getByText('No sources yet.')).toBeVisible();
    await page.getByRole('button', { name: 'Connect Google Ads' }).click();
    await allowOnConsentScreen(page, 'Google');

    await expect(page).toHaveURL(new RegExp(`/${orgId}/source/[^/]+/google/configuration\\?connected=1$`));
    await expect(page.getByRole('status').filter({ hasText: 'Source created.' })).toBeVisible();
    await expect(page.getByText('sandbox.marketer@example.com').first()).toBeVisible();
    // Clients reached through the manager are listed; the manager itself cannot be picked.
    await expect(page.getByRole('checkbox', { name: /Sandbox Agency \(manager\)/ })).toBeDisabled();
    await page.getByRole('checkbox', { name: /Acme Shoes/ }).check();
    await page.getByRole('checkbox', { name: /Sandbox Direct Store/ }).check();
    await page.getByRole('button', { name: 'Save accounts' }).click();
    await expect(page.getByText('Saved: 2 accounts.')).toBeVisible();
    // Saved: what the accounts are for, one click away.
    await expect(page.getByTestId('next-step')).toHaveText(
      'Next, copy the spend, clicks and impressions of these accounts into BigQuery or Mixpanel with a connection. Create a connection',
    );
    await expect(page.getByRole('link', { name: 'Create a connection' })).toHaveAttribute('href', `/${orgId}/createConnection`);

    // /SourceSettings is the same picker as a global route, for the selected organization.
    const sourceId = /\/source\/([^/]+)\//.exec(page.url())![1]!;
    await page.goto(`/SourceSettings?kind=source&id=${sourceId}`);
    await expect(page.getByRole('checkbox', { name: /Acme Shoes/ })).toBeChecked();

    await page.goto(`/${orgId}/source`);
    const row = page.getByRole('row', { name: /Google Ads/ });
    await expect(row).toContainText('2');
    await expect(row).toContainText('Connected');

    // The marketer removes SignalBridge's access in their Google account.
    await page.request.post(`${sandbox()}/google/revoke`);
    await row.getByRole('button', { name: 'Configure' }).click();
    const notice = page.getByRole('alert').filter({ hasText: 'Google Ads has disconnected SignalBridge.' });
    await expect(notice).toBeVisible();
    await expect(notice).toContainText('your settings stay as they are');
    await page.goto(`/${orgId}/source`);
    await expect(page.getByRole('row', { name: /Google Ads/ })).toContainText('Needs reconnecting');

    await page.getByRole('button', { name: 'Reconnect Google Ads' }).click();
    await allowOnConsentScreen(page, 'Google');
    await expect(page).toHaveURL(/\/source\/[^/]+\/google\/configuration\?reconnected=1$/);
    await expect(page.getByRole('status').filter({ hasText: 'Reconnected.' })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: /Acme Shoes/ })).toBeChecked();
    await expect.poll(() => eventsOf(page, user.uid)).toEqual(expect.arrayContaining(['Source Created', 'Source Reauthenticated']));
  });

  test("a payment made in the sandbox's Stripe arrives at Google Ads (Data Manager) with the email hashed, and is logged", async ({
    page,
    loginPage,
  }) => {
    test.setTimeout(120_000);
    const org = DEMO.orgId;
    await loginPage.logIn(DEMO, { landing: `/${org}/connection` });
    // A Google Ads destination through the sandbox's consent, with the direct account picked.
    await page.goto(`/${org}/destination`);
    await page.getByRole('button', { name: 'Connect Google Ads' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect(page).toHaveURL(/\/destination\/[^/]+\/configuration\?connected=1$/);
    const destinationId = /\/destination\/([^/]+)\/configuration/.exec(page.url())![1]!;
    await page.getByRole('checkbox', { name: /Sandbox Direct Store/ }).check();
    await page.getByRole('button', { name: 'Save accounts' }).click();
    await expect(page.getByText(/^Saved: \d+ accounts?\.$/)).toBeVisible();

    // The demo store's payments → its Purchase conversion action.
    const conversion = await createConversion(org, {
      name: 'Store payments → Google',
      source: { type: 'payments', paymentId: 'demo-stripe' },
      destination: { destinationId, platform: 'google_ads', accountId: '5556667778', targetId: '9001', targetName: 'Purchase' },
      mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'clickIds'] },
      uid: DEMO.uid,
    });

    // A customer pays on the sandbox's Stripe (its test-payment form).
    const email = `payer-${Date.now()}@example.com`;
    await page.goto(process.env.STRIPE_API_URL!);
    await page.getByLabel('Amount').fill('4900');
    await page.getByLabel('Customer email').fill(email);
    await page.getByLabel('gclid').fill('E2E-gclid-42');
    await page.getByRole('button', { name: 'Make a test payment' }).click();
    await expect(page.getByRole('status')).toContainText('made');

    // Google's sandbox received it once, as a conversion of action 9001, with the email hashed.
    const sandbox = process.env.NEXT_PUBLIC_PLATFORM_SANDBOX_URL!;
    const hashed = createHash('sha256').update(email).digest('hex');
    await expect
      .poll(
        async () => {
          const { received } = (await (await fetch(`${sandbox}/conversions.json?platform=google`)).json()) as {
            received: Array<{ key: string; receipts: number; event: Record<string, unknown> }>;
          };
          const mine = received.filter((entry) => JSON.stringify(entry.event).includes(hashed));
          return mine.map((entry) => ({
            action: entry.key.split('|')[0],
            receipts: entry.receipts,
            gclid: JSON.stringify(entry.event).includes('E2E-gclid-42'),
          }));
        },
        { timeout: 45_000 },
      )
      .toEqual([{ action: '5556667778/9001', receipts: 1, gclid: true }]);

    await page.goto(`/${org}/conversion/${conversion.id}/configuration?tab=log`);
    await expect(page.getByRole('list', { name: 'Delivery log' }).getByText(/1 delivered/)).toBeVisible();
  });
});

test('Microsoft: cancelling the consent creates nothing; allowing it creates a source with its accounts; deleting asks first', async ({
  page,
}) => {
  const { user, orgId } = await signedInOwner(page);
  await page.goto(`/${orgId}/source`);
  await page.getByRole('button', { name: 'Connect Microsoft Advertising' }).click();
  await expect(page.getByRole('heading', { name: 'SignalBridge wants to access your Microsoft account' })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(/\/addSource\?error=access_denied/);
  await expect(page.getByRole('alert').filter({ hasText: 'You did not allow access, so nothing was connected.' })).toBeVisible();
  await page.getByRole('link', { name: 'Back to your sources' }).click();
  await expect(page.getByText('No sources yet.')).toBeVisible();

  await page.getByRole('button', { name: 'Connect Microsoft Advertising' }).click();
  await allowOnConsentScreen(page, 'Microsoft');
  await expect(page).toHaveURL(/\/source\/[^/]+\/microsoft\/configuration\?connected=1$/);
  await page.getByRole('checkbox', { name: /Acme Outlet \(Microsoft\)/ }).check();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(page.getByText('Saved: 1 account.')).toBeVisible();

  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Nothing uses it.');
  await dialog.getByRole('button', { name: 'Delete source' }).click();
  await expect(page).toHaveURL(`/${orgId}/source`);
  await expect(page.getByText('No sources yet.')).toBeVisible();
  await expect.poll(() => eventsOf(page, user.uid)).toEqual(expect.arrayContaining(['Source Created', 'Source Deleted']));
});

test('LinkedIn: the consent screen connects a source on its own configuration page, with the ad accounts to pick', async ({ page }) => {
  const { orgId } = await signedInOwner(page);
  await page.goto(`/${orgId}/source`);
  await page.getByRole('button', { name: 'Connect LinkedIn Ads' }).click();
  await expect(page.getByText('Retrieve reporting for your advertising accounts')).toBeVisible();
  await allowOnConsentScreen(page, 'LinkedIn');
  await expect(page).toHaveURL(/\/source\/[^/]+\/linkedin\/configuration\?connected=1$/);
  await page.getByRole('checkbox', { name: /Acme Shoes \(LinkedIn\)/ }).check();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(page.getByText('Saved: 1 account.')).toBeVisible();
});

test('a Meta login connected as a source becomes a conversion destination without a second consent', async ({ page }) => {
  const { user, orgId } = await signedInOwner(page);
  await page.goto(`/${orgId}/source`);
  await page.getByRole('button', { name: 'Connect Meta Ads' }).click();
  await allowOnConsentScreen(page, 'Facebook');
  await expect(page).toHaveURL(/\/source\/[^/]+\/meta\/configuration\?connected=1$/);

  await page.goto(`/${orgId}/destination`);
  await expect(page.getByRole('button', { name: 'Connect another Meta Ads account' })).toBeVisible();
  await page.getByRole('button', { name: 'Use your Meta Ads login (Sandbox Marketer)' }).click();
  // No consent screen: straight to the new destination, whose login reaches the ad accounts.
  await expect(page).toHaveURL(/\/destination\/[^/]+\/configuration\?connected=1$/);
  await page.getByRole('checkbox', { name: /Acme Shoes \(Meta\)/ }).check();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(page.getByText('Saved: 1 account.')).toBeVisible();
  await page.goto(`/${orgId}/destination`);
  // Named apart from the source; its login is not offered a second time.
  await expect(page.getByRole('row', { name: /Meta Ads conversions · Sandbox Marketer/ })).toBeVisible();
  await expect(page.getByRole('button', { name: /Use your Meta Ads login/ })).toHaveCount(0);

  // Deleting the source says the destination keeps the login, and it does.
  await page.goto(`/${orgId}/source`);
  await page
    .getByRole('row', { name: /Meta Ads · Sandbox Marketer/ })
    .getByRole('button', { name: 'Delete' })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('login-kept')).toContainText(
    'Its login stays in SignalBridge: the destination “Meta Ads conversions · Sandbox Marketer” uses the same login and keeps working.',
  );
  await dialog.getByRole('button', { name: 'Delete source' }).click();
  await expect(page.getByText('No sources yet.')).toBeVisible();
  await page.goto(`/${orgId}/destination`);
  await page
    .getByRole('row', { name: /Meta Ads conversions · Sandbox Marketer/ })
    .getByRole('button', { name: 'Configure' })
    .click();
  await expect(page.getByRole('checkbox', { name: /Acme Shoes \(Meta\)/ })).toBeChecked();
  await expect.poll(() => eventsOf(page, user.uid)).toEqual(expect.arrayContaining(['Source Created', 'Destination Created']));
});

test('TikTok: the consent connects a source with its advertisers, and its login becomes a conversion destination', async ({ page }) => {
  const { orgId } = await signedInOwner(page);
  await page.goto(`/${orgId}/source`);
  await page.getByRole('button', { name: 'Connect TikTok Ads' }).click();
  await allowOnConsentScreen(page, 'TikTok For Business');
  await expect(page).toHaveURL(/\/source\/[^/]+\/tiktok\/configuration\?connected=1$/);
  await page.getByRole('checkbox', { name: /Acme Outlet \(TikTok\)/ }).check();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(page.getByText('Saved: 1 account.')).toBeVisible();

  await page.goto(`/${orgId}/destination`);
  await page.getByRole('button', { name: 'Use your TikTok Ads login (Sandbox Marketer)' }).click();
  await expect(page).toHaveURL(/\/destination\/[^/]+\/configuration\?connected=1$/);
  // It starts with the advertiser picked on the source; another is one tick away.
  await expect(page.getByRole('checkbox', { name: /Acme Outlet \(TikTok\)/ })).toBeChecked();
  await page.getByRole('checkbox', { name: /Acme Shoes \(TikTok\)/ }).check();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(page.getByText('Saved: 2 accounts.')).toBeVisible();
  await page.goto(`/${orgId}/destination`);
  await expect(page.getByRole('row', { name: /TikTok Ads conversions · Sandbox Marketer/ })).toBeVisible();
});

test('Meta as a conversion destination: an app sends to a pixel from the account, and the destination says it is in use', async ({
  page,
}) => {
  const { orgId } = await signedInOwner(page);
  await page.goto(`/${orgId}/destination`);
  await page.getByRole('button', { name: 'Connect Meta Ads' }).click();
  await allowOnConsentScreen(page, 'Facebook');
  await expect(page).toHaveURL(/\/destination\/[^/]+\/configuration\?connected=1$/);
  await page.getByRole('checkbox', { name: /Acme Shoes \(Meta\)/ }).check();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(page.getByText('Saved: 1 account.')).toBeVisible();
  await expect(page.getByTestId('next-step')).toContainText(
    'Next, send the conversions your website, payments or warehouse record to these accounts with a conversion.',
  );
  await expect(page.getByRole('link', { name: 'Create a conversion' })).toHaveAttribute('href', `/${orgId}/createConversion`);

  await page.goto(`/${orgId}/app/connect`);
  await page.getByLabel('Name').fill('Acme store');
  await page.getByLabel('Website URL').fill('https://acme.example');
  await page.getByLabel('Google Tag Manager container id').fill('gtm-abc');
  await page.getByLabel('Thank-you page paths (one per line)').fill('https://acme.example/thanks');
  await page.getByRole('button', { name: 'Add app' }).click();
  await expect(page.getByText('A tag-manager identifier must match GTM- followed by uppercase letters and digits')).toBeVisible();
  await expect(page.getByText('Payload URLs must not contain a host')).toBeVisible();
  await page.getByLabel('Google Tag Manager container id').fill('GTM-ABC123');
  await page.getByLabel('Thank-you page paths (one per line)').fill('/thanks');
  await page.getByRole('button', { name: 'Add app' }).click();
  await expect(page.getByRole('heading', { name: 'Acme store', level: 1 })).toBeVisible();

  await page.getByRole('link', { name: 'Configure Meta Ads' }).click();
  await page.getByLabel('Meta Ads destination', { exact: true }).selectOption({ label: 'Meta Ads · Sandbox Marketer' });
  await page.getByLabel('Ad account', { exact: true }).selectOption({ label: 'Acme Shoes (Meta) · 101' });
  await page.getByLabel('Pixel', { exact: true }).selectOption({ label: 'Acme Shoes Pixel' });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Conversions of Acme store now go to this pixel.')).toBeVisible();

  await page.goto(`/${orgId}/destination`);
  await page
    .getByRole('row', { name: /Meta Ads/ })
    .getByRole('button', { name: 'Delete' })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('It is still used by app “Acme store”');
  await expect(dialog.getByRole('button', { name: 'Delete destination' })).toBeDisabled();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('row', { name: /Meta Ads/ })).toBeVisible();
});

test('an app without Google Tag Manager (issue 37 §12): the id is optional, and the snippet goes into the pages with a thank-you purchase example', async ({
  page,
}) => {
  const { orgId } = await signedInOwner(page);
  await page.goto(`/${orgId}/app/connect`);
  const gtm = page.getByLabel('Google Tag Manager container id (optional)');
  await expect(gtm).not.toHaveAttribute('required');
  await expect(gtm).toHaveAccessibleDescription(/Leave it empty if your site has no Tag Manager/);
  await page.getByLabel('Name').fill('Corner shop');
  await page.getByLabel('Website URL').fill('https://corner.example');
  await page.getByLabel('Thank-you page paths (one per line)').fill('/thank-you');
  await page.getByRole('button', { name: 'Add app' }).click();
  await expect(page.getByRole('heading', { name: 'Corner shop', level: 1 })).toBeVisible();
  await expect(page.getByTestId('app-checklist')).toContainText(
    'A script for the pages of your site that sends the forms and purchases of https://corner.example.',
  );

  await page.goto(`/${orgId}/app`);
  await expect(page.getByRole('row', { name: /Corner shop/ }).getByRole('cell', { name: 'None' })).toBeVisible();

  await page.goto(`/${orgId}/app`);
  await page.getByRole('link', { name: 'Corner shop' }).click();
  await page.getByRole('link', { name: 'Endpoint and key' }).click();
  await expect(page.getByTestId('capture-where')).toContainText('Paste this into every page of your site');
  await expect(page.getByTestId('purchase-example')).toContainText("event: 'purchase'");
  await expect(page.getByTestId('purchase-example')).toContainText("transaction_id: 'ORDER-1042'");
  await expect(page.getByRole('button', { name: 'Copy a thank-you page purchase' })).toBeVisible();

  // A wrong id is still refused, before anything is sent.
  await page.goto(`/${orgId}/app`);
  await page.getByRole('link', { name: 'Corner shop' }).click();
  await page.getByLabel('Google Tag Manager container id (optional)').fill('GTM 12');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('A tag-manager identifier must match GTM- followed by uppercase letters and digits')).toBeVisible();
});

test('Mixpanel, BigQuery and Stripe: credentials are checked on save', async ({ page }) => {
  const { orgId } = await signedInOwner(page);
  await page.goto(`/${orgId}/destination`);
  await page.getByRole('button', { name: 'Connect BigQuery' }).click();
  await allowOnConsentScreen(page, 'Google');
  await expect(page).toHaveURL(/\/destination\/[^/]+\/configuration\?connected=1$/);
  await page.getByRole('checkbox', { name: /Acme Analytics/ }).check();
  await page.getByRole('button', { name: 'Save projects' }).click();
  await expect(page.getByText('Saved: 1 project.')).toBeVisible();
  await expect(page.getByTestId('next-step')).toContainText('Next, copy your ad data into these projects with a connection.');

  await page.goto(`/${orgId}/destination`);
  const mixpanel = page.getByRole('form', { name: 'Mixpanel' });
  await mixpanel.getByLabel('Service account username').fill(SANDBOX_MIXPANEL.username);
  await mixpanel.getByLabel('Service account secret').fill('wrong-secret');
  await mixpanel.getByLabel('Project id').fill(SANDBOX_MIXPANEL.projects.EU.id);
  await mixpanel.getByLabel('Data residency').selectOption('EU');
  await mixpanel.getByRole('button', { name: 'Connect Mixpanel' }).click();
  await expect(mixpanel.getByText('Mixpanel did not accept this service account username and secret.')).toBeVisible();
  await mixpanel.getByLabel('Service account secret').fill(SANDBOX_MIXPANEL.secret);
  await mixpanel.getByRole('button', { name: 'Connect Mixpanel' }).click();
  await expect(page.getByText('Project 3002 in the EU data center.')).toBeVisible();
  // Connected, with nothing to pick: said so, and the next step at once.
  await expect(page).toHaveURL(/\/destination\/[^/]+\/configuration\?connected=1$/);
  await expect(page.getByRole('status').filter({ hasText: 'Destination created.' })).toBeVisible();
  await expect(page.getByTestId('next-step')).toContainText('Next, copy your ad data into this Mixpanel project with a connection.');
  await page.getByRole('link', { name: 'Create a connection' }).click();
  await expect(page).toHaveURL(`/${orgId}/createConnection`);

  await page.goto(`/${orgId}/destination`);
  const key = await (await page.request.get(`${sandbox()}/google/service-account-key.json`)).text();
  const bigquery = page.getByRole('form', { name: 'BigQuery with a service-account key' });
  await bigquery.getByLabel('JSON key file').fill(key);
  await bigquery.getByRole('button', { name: 'Connect with key' }).click();
  await expect(page.getByText('signalbridge@acme-warehouse.iam.gserviceaccount.com').first()).toBeVisible();
  await expect(page.getByRole('checkbox', { name: /Acme Warehouse/ })).toBeVisible();

  await page.goto('/payments');
  await expect(page).toHaveURL(`/${orgId}/payment`);
  await page.getByLabel('Restricted key').fill('sk_test_123');
  await page.getByRole('button', { name: 'Connect Stripe' }).click();
  await expect(page.getByText('Use a restricted key (rk_…), never your secret key')).toBeVisible();
  await page.getByLabel('Restricted key').fill('rk_test_sandboxNoCharges');
  await page.getByRole('button', { name: 'Connect Stripe' }).click();
  await expect(page.getByText(/give the restricted key “Charges: Read” access/)).toBeVisible();
  await page.getByLabel('Restricted key').fill('rk_test_sandboxChargesRead');
  await page.getByRole('button', { name: 'Connect Stripe' }).click();
  await expect(page.getByText('Stripe connected. The key can read charges.')).toBeVisible();
  await expect(page.getByText('rk_test_sand…')).toBeVisible();
  await expect(page.getByText('rk_test_sandboxChargesRead')).toHaveCount(0);

  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete payment account' }).click();
  await expect(page).toHaveURL(`/${orgId}/payment`);
  await expect(page.getByText('No payment accounts yet.')).toBeVisible();
});

test('Starter: the picker shows the ad accounts the plan includes, and a refused save says which plan has more', async ({
  page,
  loginPage,
}) => {
  const user = await createTestUser();
  const subscription = { status: 'active', plan: 'starter', current_period_end: '2099-01-01T00:00:00.000Z' };
  const orgId = await createTestOrganization([[user, 'owner']], { subscription });
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await page.goto(`/${orgId}/source`);
  await page.getByRole('button', { name: 'Connect Google Ads' }).click();
  await allowOnConsentScreen(page, 'Google');
  await expect(page).toHaveURL(/\/google\/configuration\?connected=1$/);

  const allowance = page.getByTestId('ad-account-allowance');
  await expect(allowance).toHaveText('0 of 2 ad accounts on Starter');
  await page.getByRole('checkbox', { name: /Acme Shoes/ }).check();
  await page.getByRole('checkbox', { name: /Acme Outlet/ }).check();
  await expect(allowance).toHaveText('2 of 2 ad accounts on Starter');
  await page.getByRole('checkbox', { name: /Sandbox Direct Store/ }).check();
  await expect(allowance).toHaveText('3 of 2 ad accounts on Starter');
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(
    page.getByRole('alert').filter({ hasText: 'The Starter plan includes 2 ad accounts; you selected 3. Upgrade to Growth for up to 10.' }),
  ).toBeVisible();

  await page.getByRole('checkbox', { name: /Sandbox Direct Store/ }).uncheck();
  await page.getByRole('button', { name: 'Save accounts' }).click();
  await expect(page.getByText('Saved: 2 accounts.')).toBeVisible();
  await expect(allowance).toHaveText('2 of 2 ad accounts on Starter');
});

test('the payments and apps lists have Configure and Delete on each row, like sources and destinations', async ({ page }) => {
  const { orgId } = await signedInOwner(page);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await page.goto(`/${orgId}/payment`);
  await page.getByLabel('Restricted key').fill('rk_test_sandboxChargesRead');
  await page.getByRole('button', { name: 'Connect Stripe' }).click();
  await expect(page.getByText('Stripe connected. The key can read charges.')).toBeVisible();
  await nav.getByRole('link', { name: 'Payments' }).click();
  const payment = page.getByRole('row', { name: /rk_test_sand/ });
  await payment.getByRole('button', { name: 'Configure' }).click();
  await expect(page).toHaveURL(new RegExp(`/${orgId}/payment/[^/]+/configuration$`));
  await nav.getByRole('link', { name: 'Payments' }).click();
  await payment.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete payment account' }).click();
  await expect(page.getByText('No payment accounts yet.')).toBeVisible();

  await page.goto(`/${orgId}/app/connect`);
  await page.getByLabel('Name').fill('Row store');
  await page.getByLabel('Website URL').fill('https://row.example');
  await page.getByLabel('Google Tag Manager container id').fill('GTM-ROW1');
  await page.getByRole('button', { name: 'Add app' }).click();
  await expect(page.getByRole('heading', { name: 'Row store', level: 1 })).toBeVisible();
  const appId = /\/app\/([^/?]+)/.exec(page.url())![1]!;
  await nav.getByRole('link', { name: 'Apps' }).click();
  const app = page.getByRole('row', { name: /Row store/ });
  await app.getByRole('button', { name: 'Configure' }).click();
  await expect(page).toHaveURL(`/${orgId}/app/${appId}`);
  await nav.getByRole('link', { name: 'Apps' }).click();
  await app.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete app' }).click();
  await expect(page.getByText('No apps yet.')).toBeVisible();
});
