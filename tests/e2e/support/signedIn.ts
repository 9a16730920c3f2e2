import { createTestOrganization, createTestUser } from '@/tests/e2e/helpers';
import type { LoginPage } from '@/tests/e2e/support/authPages';

/** An organization's fields for the Scale plan: hourly schedules, historical backfills, more ad accounts. */
export const ON_SCALE = {
  subscription: { status: 'active', plan: 'scale', current_period_end: '2099-01-01T00:00:00.000Z', past_due_since: null },
};

/** A new user who owns a new organization (with `organization`'s fields), signed in on its connections page. */
export async function signedInOwner(loginPage: LoginPage, organization: Record<string, unknown> = {}) {
  const user = await createTestUser();
  const orgId = await createTestOrganization([[user, 'owner']], organization);
  await loginPage.logIn(user, { landing: `/${orgId}/connection` });
  return { user, orgId };
}
