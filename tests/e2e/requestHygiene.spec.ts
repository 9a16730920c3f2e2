import { adminDb } from '@/lib/server/firebaseAdmin';
import { userWithOrganizations } from '@/tests/e2e/helpers';
import { expect, test } from '@/tests/e2e/support/fixtures';

/**
 * Issue 12 against the real server (next start): redirects stay on our origin, malformed page paths
 * and ids are answered without a 500, and the session cookie works only for our own pages.
 */
test('signed in with the session cookie: callbacks, page paths and ids the attacker chose', async ({ page, baseURL, loginPage }) => {
  const { user, orgIds } = await userWithOrganizations(1);
  await loginPage.logIn(user, { landing: `/${orgIds[0]}/connection` });
  const noRedirect = { maxRedirects: 0 };

  for (const callback of ['%2F.%2F%2Fevil.example%2F', '%2F%252e%2F%2Fevil.example%2F', '%2Fx%2F..%2F%2Fevil.example%2F']) {
    const response = await page.request.get(`/login?callback=${callback}`, noRedirect);
    expect(response.status()).toBe(307);
    expect(new URL(response.headers().location!, baseURL).origin).toBe(new URL(baseURL!).origin);
  }

  const malformed = await page.request.get('/%E0%A4%A/settings', noRedirect);
  expect(malformed.status()).toBe(307);
  expect(new URL(malformed.headers().location!, baseURL).pathname).toBe('/organizations');

  // A route segment that is no id gets the answer of a missing organization (the browser sends our Origin).
  const reserved = await page.request.patch('/api/orgs/__x__', {
    data: { companyName: 'Renamed', company_logo: null },
    headers: { Origin: new URL(baseURL!).origin },
  });
  expect(reserved.status()).toBe(404);
  expect(await reserved.json()).toMatchObject({ message: 'Organization not found.' });
  expect((await page.request.get('/api/orgs/a%2Fb/apps')).status()).toBe(404);
});

test('a form on another site cannot use the session cookie to invite someone', async ({ page, loginPage }) => {
  const { user, orgIds } = await userWithOrganizations(1);
  await loginPage.logIn(user, { landing: `/${orgIds[0]}/connection` });
  const email = `csrf-${Date.now()}@example.test`;

  const response = await page.request.post('/api/sendInvitation', {
    headers: { Origin: 'http://evil.example' },
    form: { email, organization_id: orgIds[0]!, inviter_user_id: user.uid, inviter_email: user.email },
  });
  expect(response.status()).toBe(403);
  expect((await adminDb().collection('invitations').where('email', '==', email).get()).size).toBe(0);
});
