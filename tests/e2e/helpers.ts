import { expect, type Page } from '@playwright/test';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import type { OrganizationRole } from '@/lib/shared/permissions';

export { createTestOrganization, createTestUser, type TestUser };

/**
 * Signs in through the login form, as a person would, and waits for the page the rules lead to
 * (`landing`: a path, or a pattern when the path is not known in advance).
 */
export async function logIn(
  page: Page,
  user: Pick<TestUser, 'email' | 'password'>,
  { from = '/login', landing }: { from?: string; landing: string | RegExp },
) {
  await page.goto(from);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page).toHaveURL(landing);
}

/** A new user who belongs to the given number of fresh organizations (named in order). */
export async function userWithOrganizations(count: number, role: OrganizationRole = 'owner') {
  const user = await createTestUser();
  const orgIds: string[] = [];
  for (let i = 0; i < count; i++) {
    orgIds.push(await createTestOrganization([[user, role]], { company_name: `E2E Org ${i + 1} ${user.uid.slice(5, 11)}` }));
  }
  return { user, orgIds };
}

/** The redux-persist entry, parsed one level (each slice is itself JSON). */
export async function persistedState(page: Page): Promise<Record<string, unknown>> {
  const raw = await page.evaluate(() => window.localStorage.getItem('persist:signalbridge'));
  if (!raw) return {};
  return Object.fromEntries(Object.entries(JSON.parse(raw) as Record<string, string>).map(([key, value]) => [key, JSON.parse(value)]));
}

/** What the fake Customer.io has received (`npm test` starts it and passes its URL to the app). */
export async function fakeCustomerIo<T>(page: Page, what: 'messages' | 'events' | 'people'): Promise<T> {
  const base = process.env.CUSTOMERIO_API_URL!.replace(/\/v1$/, '');
  const body = (await (await page.request.get(`${base}/__fake/${what}`)).json()) as Record<string, T>;
  return body[what]!;
}

/**
 * Signs out from the user menu and waits until the app has forgotten the user: the page moves to
 * /login at once (its queries stop while the token still exists), the sign-out finishes after that.
 */
export async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL('/login');
  await expect
    .poll(async () => ((await persistedState(page)).user as { isAuthenticated?: boolean } | undefined)?.isAuthenticated)
    .toBe(false);
}
