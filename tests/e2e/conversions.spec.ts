import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createConversion } from '@/lib/server/repos/conversions';
import { PURCHASE_EXAMPLE } from '@/lib/shared/integrations/purchaseExample';
import { DEMO } from '@/scripts/lib/demo';
import { createTestOrganization, createTestUser } from '@/tests/e2e/helpers';
import { demoAppConversion } from '@/tests/e2e/support/demoConversion';
import { expect, test } from '@/tests/e2e/support/fixtures';
import { signedInOwner } from '@/tests/e2e/support/signedIn';

/**
 * Conversions through the pages: the step-by-step creation, the configuration page's test event and
 * delivery log, the list, the empty states and the plan limit. The demo organization is on Growth
 * (conversions included); a Meta destination is connected through the sandbox's consent page.
 */

const org = DEMO.orgId;

test('a conversion from an app to a Meta pixel: created step by step, its test event is delivered and logged, and it is listed', async ({
  page,
  loginPage,
  appShell,
  appsPage,
  destinationsPage,
  newConversionPage,
  conversionsPage,
}) => {
  test.setTimeout(120_000);
  // An app of its own: the demo's "Demo store" already sends every event to this pixel, and a second
  // conversion of one app to one pixel is refused (it would send each event twice).
  const suffix = Date.now().toString(36);
  const appName = `E2E store ${suffix}`;
  const name = `Leads to Meta ${suffix}`;
  await loginPage.logIn(DEMO, { landing: `/${org}/connection` });
  await appsPage.ensureApp(org, appName);
  await destinationsPage.ensureMeta(org);

  await newConversionPage.goto(org);
  await expect(page.getByRole('heading', { name: 'New conversion', level: 1 })).toBeVisible();
  // Continue without a choice says what is missing.
  await newConversionPage.continue();
  await expect(page.getByText('Choose where the events come from')).toBeVisible();
  await expect(newConversionPage.step('Choose a source')).toBeVisible();
  await newConversionPage.chooseApp(appName);
  await expect(newConversionPage.step('Choose a destination')).toBeVisible();
  await newConversionPage.chooseMetaPixel();
  await expect(newConversionPage.step('Map the events')).toBeVisible();

  // The mapping is checked with the server's own rules before anything is sent.
  await page.getByLabel('Event names to send').fill('Lead');
  await page.getByLabel('Event names to send').press('Enter');
  await expect(page.getByRole('list', { name: 'Event names' })).toContainText('Lead');
  await page.getByRole('radio', { name: 'A fixed amount for every event' }).check();
  await page.getByLabel('Currency', { exact: true }).fill('eur');
  await expect(page.getByLabel('Currency', { exact: true })).toHaveValue('EUR');
  await newConversionPage.continue();
  await expect(page.getByText('A number', { exact: true })).toBeVisible();
  await page.getByLabel('Amount', { exact: true }).fill('25');
  await newConversionPage.continue();

  await expect(newConversionPage.step('Review and create')).toBeVisible();
  const summary = page.getByRole('definition');
  await expect(summary.filter({ hasText: `Form submissions of the app “${appName}”` })).toBeVisible();
  await expect(summary.filter({ hasText: 'Acme Shoes Pixel · 555000111' })).toBeVisible();
  await expect(summary.filter({ hasText: /^Lead$/ })).toBeVisible();
  await expect(summary.filter({ hasText: /A fixed .*25\.00 per event/ })).toBeVisible();
  await expect(page.getByLabel('Name')).toHaveValue(`${appName} → Acme Shoes Pixel`);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create conversion' }).click();

  await expect(page).toHaveURL(new RegExp(`/${org}/conversion/[^/]+/configuration$`));
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByText('Active', { exact: true })).toBeVisible();
  await conversionsPage.openTab('Delivery log');
  await expect(page).toHaveURL(/\?tab=log$/);
  await expect(page.getByText('No deliveries yet.', { exact: false })).toBeVisible();

  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Delivered.' })).toContainText(
    'Meta Ads accepted the test event for t***@signalbridge.example',
  );
  const log = conversionsPage.deliveryLog;
  const testLine = log.getByRole('listitem').filter({ hasText: 'Test' });
  await expect(testLine).toHaveCount(1);
  await expect(testLine).toContainText('1 delivered');
  await testLine.getByText('1 delivered').click();
  await expect(testLine.getByRole('row', { name: /t\*\*\*@signalbridge\.example/ })).toContainText('Delivered');

  // The log finds the call by the event's id.
  const eventId = (await testLine.getByRole('cell').first().textContent())!.trim();
  await page.getByLabel('Event id').fill(eventId);
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByText(`Platform calls that held the event “${eventId}”.`)).toBeVisible();
  await expect(log.getByRole('listitem')).toHaveCount(1);

  await appShell.open('Conversions');
  await expect(page).toHaveURL(`/${org}/conversion`);
  const row = conversionsPage.row(name);
  await expect(row).toContainText(`App “${appName}”`);
  await expect(row).toContainText('Meta Ads pixel “Acme Shoes Pixel”');
  await expect(row).toContainText('Active');
  await expect(row).toContainText('0 delivered');
  await row.getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
});

test("another organization's conversion is not found, by its id or under its organization", async ({
  page,
  loginPage,
  conversionsPage,
}) => {
  const stranger = await createTestUser();
  const otherOrg = await createTestOrganization([[stranger, 'owner']]);
  const conversion = await createConversion(otherOrg, {
    name: 'Secret conversion',
    source: { type: 'app', appId: 'app-1' },
    destination: { destinationId: 'dest-1', platform: 'meta_ads', accountId: '101', targetId: '555000111', targetName: 'Acme Shoes Pixel' },
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email'] },
    uid: stranger.uid,
  });

  await loginPage.logIn(DEMO, { landing: `/${org}/connection` });
  await conversionsPage.open(org, conversion.id);
  await expect(page.getByRole('heading', { name: 'Conversion', level: 1 })).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'Conversion not found.' })).toBeVisible();
  await expect(page.getByText('Secret conversion')).toHaveCount(0);

  await conversionsPage.open(otherOrg, conversion.id);
  await expect(page).toHaveURL('/organizations');
  await expect(page.getByText('Secret conversion')).toHaveCount(0);
});

test('a new organization: the empty list leads to the flow, whose empty steps link to what to connect', async ({
  page,
  loginPage,
  appsPage,
  conversionsPage,
  newConversionPage,
}) => {
  const { orgId } = await signedInOwner(loginPage);
  await conversionsPage.goto(orgId);
  await expect(page.getByText('No conversions yet.')).toBeVisible();
  await page.getByRole('link', { name: 'New conversion' }).click();
  await expect(page).toHaveURL(`/${orgId}/createConversion`);
  await expect(page.getByText('No apps or payment accounts yet.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Connect Stripe' })).toHaveAttribute('href', `/${orgId}/payment`);
  await expect(newConversionPage.continueButton).toHaveCount(0);
  await page.getByRole('link', { name: 'Add an app' }).click();
  await expect(page).toHaveURL(`/${orgId}/app/connect`);

  await appsPage.ensureApp(orgId, 'Empty store');
  await newConversionPage.goto(orgId);
  await newConversionPage.chooseApp('Empty store');
  await expect(page.getByText('No ad platform to send to yet.')).toBeVisible();
  await page.getByRole('link', { name: 'Go to destinations' }).click();
  await expect(page).toHaveURL(`/${orgId}/destination`);
});

test('on Starter, the first step says which plans include conversions, with a link to them', async ({
  page,
  loginPage,
  appsPage,
  newConversionPage,
}) => {
  test.setTimeout(90_000);
  const user = await createTestUser();
  const subscription = { status: 'active', plan: 'starter', current_period_end: '2099-01-01T00:00:00.000Z' };
  const orgId = await createTestOrganization([[user, 'owner']], { subscription });
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  await appsPage.ensureApp(orgId, 'Starter store');

  await newConversionPage.goto(orgId);
  // Said up front, before any choice: the wizard does not lead to a refusal at its last step.
  const refusal = page.getByRole('alert').filter({ hasText: 'Conversions are included in the Growth and Scale plans.' });
  await expect(refusal).toBeVisible();
  await expect(newConversionPage.step('Choose a source')).toBeVisible();
  await expect(newConversionPage.continueButton).toHaveCount(0);
  await refusal.getByRole('link', { name: 'See the plans' }).click();
  await expect(page).toHaveURL(`/${orgId}/subscription`);
});

/**
 * A website of our own on 127.0.0.1 (another port than the app): a thank-you page with a form and the snippet,
 * and what the page says before it (`head`: a dataLayer purchase).
 */
async function serveWebsite(snippet: () => string, head = ''): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<!doctype html><title>Shop</title>${head}<h1>Thanks!</h1>
<form onsubmit="event.preventDefault(); document.querySelector('#sent').hidden = false">
<label>Email <input type="email" name="email"></label><label>First name <input name="first_name"></label>
<button>Send</button></form><p id="sent" hidden>Sent</p>${snippet()}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${address.port}`, server };
}

test('a shop without Tag Manager: the purchase its thank-you page pushes to the dataLayer reaches Meta once, the transaction id its event id (issue 37 §12)', async ({
  page,
  loginPage,
}) => {
  test.setTimeout(120_000);
  let snippetHtml = '';
  const orderId = `ORDER-${Date.now().toString(36)}`;
  // The app page's own example, with this order's id.
  const website = await serveWebsite(() => snippetHtml, PURCHASE_EXAMPLE.replace('ORDER-1042', orderId));
  try {
    const { appId } = await demoAppConversion(
      { name: `Shop ${Date.now().toString(36)}`, websiteUrl: website.origin, gtmContainerId: null },
      { name: 'Website purchases', events: ['Purchase'], identifiers: ['email', 'clickIds', 'context'] },
    );
    await loginPage.logIn(DEMO, { landing: `/${org}/connection` });
    await page.goto(`/${org}/app/${appId}/custom-submission`);
    await expect(page.getByTestId('capture-where')).toContainText('Paste this into every page of your site');
    await page.getByRole('button', { name: 'Show the snippet' }).click();
    snippetHtml = (await page.getByTestId('capture-snippet').textContent()) ?? '';

    // A buyer from a Meta ad reaches the thank-you page, and loads it again.
    await page.goto(`${website.origin}/checkout/thank-you?fbclid=E2Epurchase`);
    await page.reload();

    const sandbox = process.env.NEXT_PUBLIC_PLATFORM_SANDBOX_URL!;
    const mine = async () => {
      const { received } = (await (await fetch(`${sandbox}/conversions.json?platform=meta`)).json()) as {
        received: Array<{ target: string; event: { event_id?: string; event_name?: string; custom_data?: unknown } }>;
      };
      return received.filter((entry) => entry.target === '555000111' && entry.event.event_id === orderId).map((entry) => entry.event);
    };
    await expect.poll(async () => (await mine()).length, { timeout: 30_000 }).toBeGreaterThan(0);
    // A few seconds more: the reload sent nothing (the same transaction is one conversion).
    await page.waitForTimeout(3000);
    const events = await mine();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event_name: 'Purchase', custom_data: { value: 129.9, currency: 'EUR' } });
  } finally {
    await new Promise((resolve) => website.server.close(resolve));
  }
});

test("a form sent on the app's website through the snippet is delivered to Meta hashed, and logged", async ({
  page,
  loginPage,
  conversionsPage,
}) => {
  test.setTimeout(120_000);
  let snippetHtml = '';
  const website = await serveWebsite(() => snippetHtml);
  try {
    // An app for that website and a conversion from it to the demo's Meta pixel (the seeded login).
    const { appId, conversionId } = await demoAppConversion(
      { name: `Website ${Date.now().toString(36)}`, websiteUrl: website.origin, gtmContainerId: 'GTM-SITE1' },
      { name: 'Website leads', events: [], identifiers: ['email', 'name', 'clickIds', 'context'] },
    );

    await loginPage.logIn(DEMO, { landing: `/${org}/connection` });
    await page.goto(`/${org}/app/${appId}/custom-submission`);
    await page.getByRole('button', { name: 'Show the snippet' }).click();
    snippetHtml = (await page.getByTestId('capture-snippet').textContent()) ?? '';
    expect(snippetHtml).toContain('?key=sbp_');

    // A visitor lands from a Meta ad on the thank-you page (a payload URL) and sends the form.
    const email = `visitor-${Date.now()}@example.com`;
    await page.goto(`${website.origin}/thanks?fbclid=E2Efbclid123`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('First name').fill('Ada');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByText('Sent')).toBeVisible();

    // The sandbox's Meta received it with the email hashed, never in clear.
    const sandbox = process.env.NEXT_PUBLIC_PLATFORM_SANDBOX_URL!;
    const hashed = createHash('sha256').update(email).digest('hex');
    await expect
      .poll(
        async () => {
          const { received } = (await (await fetch(`${sandbox}/conversions.json?platform=meta`)).json()) as {
            received: Array<{ target: string; event: { user_data?: { em?: string[] } } }>;
          };
          const mine = received.find((entry) => entry.target === '555000111' && entry.event.user_data?.em?.includes(hashed));
          return mine ? JSON.stringify(mine.event) : null;
        },
        { timeout: 30_000 },
      )
      .toMatch(/"fbc":"fb\.1\.\d+\.E2Efbclid123"/);
    const everything = await (await fetch(`${sandbox}/conversions.json?platform=meta`)).text();
    expect(everything).not.toContain(email);

    // And the conversion's log shows the row as delivered, the email masked.
    await conversionsPage.open(org, conversionId, 'log');
    const masked = `v***@example.com`;
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return conversionsPage.deliveryLog.getByText(/1 delivered/).count();
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThan(0);
    await conversionsPage.deliveryLog
      .getByText(/1 delivered/)
      .first()
      .click();
    await expect(page.getByText(masked).first()).toBeVisible();

    // Match quality: the one event counted for each key Meta matches by, and Meta's own figure or "not reported yet".
    await conversionsPage.openTab('Match quality');
    const quality = page.getByRole('region', { name: 'Match quality' });
    await quality.getByRole('button', { name: 'Reload figures' }).click();
    const shares = quality.getByRole('table', { name: 'Share of events carrying each match key' });
    await expect(shares.getByRole('row', { name: /^Email/ })).toContainText(/of 1\)/);
    await expect(shares.getByRole('rowheader')).toHaveText(['Email', 'Phone', 'Name and address', 'Click id', 'IP address + user agent']);
    await expect(quality.getByRole('heading', { name: 'What Meta Ads reports' })).toBeVisible();
    await expect(quality.getByText(/Not reported yet|Could not read what Meta Ads reports|Event Match Quality/).first()).toBeVisible();
  } finally {
    await new Promise((resolve) => website.server.close(resolve));
  }
});
