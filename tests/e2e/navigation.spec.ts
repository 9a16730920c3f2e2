import { createTestOrganization, createTestUser, persistedState, userWithOrganizations } from '@/tests/e2e/helpers';
import { LoginPage } from '@/tests/e2e/support/authPages';
import { expect, test } from '@/tests/e2e/support/fixtures';

/** A 1×1 PNG: an organization logo. */
const LOGO = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

test.describe('signed out', () => {
  test('the wanted page becomes the callback (and a cookie); after login the user is taken back to it', async ({
    page,
    context,
    loginPage,
  }) => {
    const { user, orgIds } = await userWithOrganizations(2);
    const wanted = `/${orgIds[1]}/source`;
    await page.goto(wanted);
    await expect(page).toHaveURL(`/login?callback=${encodeURIComponent(wanted)}`);
    const cookie = (await context.cookies()).find((c) => c.name === 'callbackUrl');
    expect(decodeURIComponent(cookie!.value)).toBe(wanted);

    await loginPage.logIn(user, { from: page.url(), landing: wanted });
    await expect(page.getByRole('heading', { name: 'Sources' })).toBeVisible();
  });

  test('the callback cookie alone brings the user back', async ({ page, loginPage }) => {
    const { user, orgIds } = await userWithOrganizations(2);
    await page.goto(`/${orgIds[0]}/destination`);
    await loginPage.logIn(user, { from: '/login', landing: `/${orgIds[0]}/destination` });
  });

  test('a callback that leaves the site is ignored', async ({ page, appShell, loginPage }) => {
    const { user } = await userWithOrganizations(2);
    for (const evil of ['//evil.example/x', 'https://evil.example/x', '/\\evil.example']) {
      await test.step(evil, async () => {
        await page.context().clearCookies();
        await page.evaluate(() => window.localStorage.clear()).catch(() => undefined);
        await loginPage.logIn(user, { from: `/login?callback=${encodeURIComponent(evil)}`, landing: '/organizations' });
        await appShell.signOut();
      });
    }
  });
});

test.describe('signed in', () => {
  test('the sign-in pages send a signed-in user to /organizations', async ({ page, loginPage }) => {
    const { user } = await userWithOrganizations(2);
    await loginPage.logIn(user, { landing: '/organizations' });
    for (const path of ['/login', '/signUp', '/forgotPassword', '/']) {
      await page.goto(path);
      await expect(page).toHaveURL('/organizations');
    }
  });

  test('one organization → its connections; several → the list; none → onboarding', async ({ browser }) => {
    const one = await userWithOrganizations(1);
    const several = await userWithOrganizations(3);
    const none = await createTestUser();
    for (const [user, landing] of [
      [one.user, `/${one.orgIds[0]}/connection`],
      [several.user, '/organizations'],
      [none, '/onboarding'],
    ] as const) {
      const context = await browser.newContext();
      await new LoginPage(await context.newPage()).logIn(user, { landing });
      await context.close();
    }
  });

  test('the organizations list shows each organization; choosing one opens it', async ({ page, loginPage, organizationsPage }) => {
    const { user, orgIds } = await userWithOrganizations(2);
    await loginPage.logIn(user, { landing: '/organizations' });
    await expect(organizationsPage.entries).toHaveCount(2);
    await expect(organizationsPage.entries.first()).toContainText('0 connections');
    await organizationsPage.open(/E2E Org 2/);
    await expect(page).toHaveURL(`/${orgIds[1]}/connection`);
  });

  test('/settings → the selected organization’s settings; /onboarding with organizations → its connections', async ({
    page,
    loginPage,
  }) => {
    const { user, orgIds } = await userWithOrganizations(2);
    await loginPage.logIn(user, { landing: '/organizations' });
    await page.goto(`/${orgIds[1]}/source`);
    await expect(page.getByRole('heading', { name: 'Sources' })).toBeVisible();
    await page.goto('/settings');
    await expect(page).toHaveURL(`/${orgIds[1]}/settings`);
    await page.goto('/onboarding');
    await expect(page).toHaveURL(`/${orgIds[1]}/connection`);
  });

  test("another organization's pages send the user to /organizations", async ({ page, loginPage }) => {
    const { user } = await userWithOrganizations(2);
    const stranger = await userWithOrganizations(1);
    await loginPage.logIn(user, { landing: '/organizations' });
    await page.goto(`/${stranger.orgIds[0]}/connection`);
    await expect(page).toHaveURL('/organizations');
    // and a client-side visit is caught too
    await page.evaluate(
      (path) => (window as unknown as { next: { router: { push: (p: string) => Promise<boolean> } } }).next.router.push(path),
      `/${stranger.orgIds[0]}/source`,
    );
    await expect(page).toHaveURL('/organizations');
  });

  test('entering connections clears the remembered flow keys', async ({ page, loginPage, appShell }) => {
    const { user, orgIds } = await userWithOrganizations(1);
    await loginPage.logIn(user, { landing: `/${orgIds[0]}/connection` });
    // Remember flow keys, as an OAuth round trip would, before the app starts on the next load.
    await page.addInitScript(() => {
      if (window.sessionStorage.getItem('flowSeeded')) return;
      window.sessionStorage.setItem('flowSeeded', '1');
      const state = JSON.parse(window.localStorage.getItem('persist:signalbridge')!);
      state.flow = JSON.stringify({ storedFrom: 'source', storedType: 'google', sourceKey: 'k1' });
      window.localStorage.setItem('persist:signalbridge', JSON.stringify(state));
    });
    await page.goto(`/${orgIds[0]}/source`);
    await expect(page.getByRole('heading', { name: 'Sources' })).toBeVisible();
    expect((await persistedState(page)).flow).toEqual({ storedFrom: 'source', storedType: 'google', sourceKey: 'k1' });

    await appShell.open('Connections');
    await expect(page).toHaveURL(`/${orgIds[0]}/connection`);
    await expect.poll(async () => (await persistedState(page)).flow).toEqual({ storedFrom: null, storedType: null, sourceKey: null });
  });

  test('the sidebar names the organization (with its logo); a keyboard menu switches to another or to all of them', async ({
    page,
    loginPage,
  }) => {
    const user = await createTestUser();
    const suffix = user.uid.slice(5, 11);
    const [first, second] = [`Switcher Alpha ${suffix}`, `Switcher Beta ${suffix}`];
    const firstId = await createTestOrganization([[user, 'owner']], { company_name: first, name: first, company_logo: LOGO, logo: LOGO });
    const secondId = await createTestOrganization([[user, 'owner']], { company_name: second, name: second });
    await loginPage.logIn(user, { landing: '/organizations' });
    await page.goto(`/${firstId}/source`);
    await expect(page.getByTestId('current-organization')).toHaveText(first);
    const switcher = page.getByRole('button', { name: new RegExp(`Organization ${first}`) });
    await expect(switcher.locator('img')).toHaveAttribute('src', LOGO);

    const menu = page.getByRole('menu', { name: 'Switch organization' });
    await switcher.focus();
    await page.keyboard.press('ArrowDown');
    await expect(menu).toBeVisible();
    const items = menu.getByRole('menuitem');
    await expect(items).toHaveCount(3);
    await expect(items.last()).toHaveText('All organizations');
    await expect(items.first()).toBeFocused();
    await expect(menu.getByRole('menuitem', { name: first })).toHaveAttribute('aria-current', 'true');
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await expect(switcher).toBeFocused();

    await page.keyboard.press('Enter');
    const target = menu.getByRole('menuitem', { name: second });
    for (let presses = 0; presses < 3 && !(await target.evaluate((element) => element === document.activeElement)); presses++) {
      await page.keyboard.press('ArrowDown');
    }
    await expect(target).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(`/${secondId}/connection`);
    await expect(page.getByTestId('current-organization')).toHaveText(second);

    await page.getByRole('button', { name: new RegExp(`Organization ${second}`) }).focus();
    await page.keyboard.press('ArrowUp');
    await expect(menu.getByRole('menuitem', { name: 'All organizations' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL('/organizations');
  });
});
