import { type Page } from 'playwright/test';
import { createTestOrganization, createTestUser, uniqueEmail, type TestUser } from '@/tests/fixtures/firebase';
import type { OrganizationRole } from '@/lib/shared/permissions';

export { createTestOrganization, createTestUser, uniqueEmail, type TestUser };

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
