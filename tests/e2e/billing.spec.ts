import { createTestOrganization, createTestUser } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';

test('subscribe → the gate opens; cancel in the portal → the gate closes', async ({ page, loginPage }) => {
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']], { subscription: null, company_name: 'Gatekeepers' });
  await loginPage.logIn(owner, { landing: `/${orgId}/subscription` });
  await expect(page.getByTestId('subscription-status')).toHaveText(
    'This organization has no active subscription. Choose a plan to open its pages.',
  );
  // Not subscribed: the top navbar only (every sidebar link would lead back here).
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  // the gate holds for every organization page, full loads included
  await page.goto(`/${orgId}/source`);
  await expect(page).toHaveURL(`/${orgId}/subscription`);

  // Which plan: the guide answers in the plans' own names, Starter's card says what it leaves out, and the
  // three buttons stand level at the cards' feet.
  const guide = page.getByRole('region', { name: 'Which plan do I need?' });
  await expect(guide).toContainText('Growth or Scale (Conversions API uploads). Starter copies ad data only.');
  await expect(guide).toContainText('Up to 2: Starter; up to 10: Growth; more: Scale.');
  const plans = page.getByRole('list', { name: 'Plans' });
  const starter = plans.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Starter' }) });
  await expect(starter).toContainText('Conversions API uploads — not included: ad data only');
  const buttonTops = await Promise.all(
    ['Starter', 'Growth', 'Scale'].map(async (plan) => (await plans.getByRole('button', { name: `Choose ${plan}` }).boundingBox())!.y),
  );
  expect(Math.max(...buttonTops) - Math.min(...buttonTops)).toBeLessThanOrEqual(1);

  await plans.getByRole('button', { name: 'Choose Growth' }).click();
  await expect(page.getByRole('heading', { name: 'Subscribe to Growth' })).toBeVisible();
  await expect(page.getByText('149.00 USD per month')).toBeVisible();
  await page.getByRole('button', { name: 'Pay' }).click();

  await expect(page).toHaveURL(new RegExp(`/${orgId}/subscription/success\\?session_id=cs_test_`));
  await expect(page.getByRole('heading', { name: 'Subscription confirmed' })).toBeVisible();
  await expect(page).toHaveTitle('Subscription confirmed · SignalBridge');
  await expect(page.getByText('Your subscription is active.')).toBeVisible();
  await expect(page.getByText('We could not find a completed checkout')).toHaveCount(0);
  await page.getByRole('link', { name: 'Go to connections' }).click();
  await expect(page).toHaveURL(`/${orgId}/connection`);
  await page.goto(`/${orgId}/source`);
  await expect(page.getByRole('heading', { name: 'Sources' })).toBeVisible();

  // One subscription per organization: no second checkout, the plan changes in the portal.
  await page.goto(`/${orgId}/subscription`);
  await expect(page.getByTestId('subscription-status')).toHaveText('Your Growth plan is active.');
  // Subscribed: still the top navbar (the spec's layout for this route), with the way back into the app.
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Go to connections' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Plans' })).toContainText('Current plan');
  await expect(page.getByRole('button', { name: /^Choose/ })).toHaveCount(0);
  // A plan's own button changes it, through Stripe's portal (not a second checkout).
  await expect(plans.getByRole('button', { name: 'Upgrade to Scale' })).toBeVisible();
  await plans.getByRole('button', { name: 'Switch to Starter' }).click();
  await expect(page.getByRole('heading', { name: 'Billing' })).toBeVisible();
  await page.getByRole('button', { name: 'Switch to Starter' }).click();
  await expect(page).toHaveURL(`/${orgId}/subscription`);
  await expect(page.getByTestId('subscription-status')).toHaveText('Your Starter plan is active.');

  await page.goto(`/${orgId}/settings`);
  await expect(page.getByRole('region', { name: 'Billing' })).toContainText('Plan: Starter (active)');
  await page.getByRole('button', { name: 'Manage billing' }).click();
  await expect(page.getByRole('heading', { name: 'Billing' })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel subscription' }).click();

  await expect(page).toHaveURL(`/${orgId}/subscription`);
  await expect(page.getByTestId('subscription-status')).toHaveText(
    'This organization has no active subscription. Choose a plan to open its pages.',
  );
  await page.goto(`/${orgId}/source`);
  await expect(page).toHaveURL(`/${orgId}/subscription`);
});

test('a member cannot start a checkout', async ({ page, loginPage }) => {
  const owner = await createTestUser();
  const member = await createTestUser();
  const orgId = await createTestOrganization(
    [
      [owner, 'owner'],
      [member, 'member'],
    ],
    { subscription: null },
  );
  await loginPage.logIn(member, { landing: `/${orgId}/subscription` });
  await expect(page.getByText('Only owners and admins of this organization can subscribe.')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Plans' })).toContainText('Starter');
  await expect(page.getByRole('button', { name: /^Choose/ })).toHaveCount(0);
});

test('the global subscription pages lead to the selected organization’s', async ({ page, loginPage }) => {
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']], { subscription: null });
  await loginPage.logIn(owner, { landing: `/${orgId}/subscription` });
  await page.goto('/subscription/failure');
  await expect(page).toHaveURL(`/${orgId}/subscription/failure`);
  await expect(page.getByRole('heading', { name: 'Subscription not completed' })).toBeVisible();
});

test('the checkout result says one true thing: a checkout that is not found is never "confirmed"', async ({ page, loginPage }) => {
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']], { subscription: null });
  await loginPage.logIn(owner, { landing: `/${orgId}/subscription` });
  await page.goto(`/${orgId}/subscription/success?session_id=cs_test_notARealSession`);
  await expect(page.getByRole('heading', { name: 'Checkout not found' })).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'We could not find a completed checkout for this organization.' })).toBeVisible();
  await expect(page).toHaveTitle('Checkout not found · SignalBridge');
  await expect(page.getByText(/Subscription confirmed|Thank you/)).toHaveCount(0);
  await page.getByRole('link', { name: 'Back to the plans' }).click();
  await expect(page).toHaveURL(`/${orgId}/subscription`);
});
